"""Examples of programs that use an unoduo server (docs/BOTS.md: ``bot.py``, a bring-your-own bot)."""
