-- Langfuse's own database (the langfuse profile); ragbot's is POSTGRES_DB.
CREATE DATABASE langfuse OWNER ragbot;
