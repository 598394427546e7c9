"""A small FAQ page that a casual question misses but comes near: its refusal offers
the entry meant (graph.related_questions), on every surface that shows offers."""

from __future__ import annotations

RUBBISH_DOCUMENT = "rubbish.md"
RUBBISH = """# Rubbish collection FAQ

## When is my bin collected?
Bins are collected every Tuesday morning from 7:00.

## What goes in the recycling bin?
Paper, cardboard, glass bottles and clean plastic containers.

## How do I get rid of a sofa or other bulky items?
Book a bulky-item pickup online; it costs 20 euros for up to three items.

## Can I put batteries in the bin?
No. Batteries can start fires in the truck. Take them to a collection point at any supermarket.

## My bin was not emptied, what should I do?
Report a missed collection online within two working days.
"""
SOFA = "How do I get rid of a sofa or other bulky items?"
COUCH = "can i throw out an old couch"  # refused: no entry leads; SOFA is offered
