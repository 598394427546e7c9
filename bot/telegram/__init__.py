"""The Telegram adapter: python-telegram-bot on the serving core."""
