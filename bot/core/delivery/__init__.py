"""Delivery: messages accepted into the inbox, answered once, sent through the outbox."""
