"""What a person types that others will read (a name, a note): one check for all of them."""

from __future__ import annotations

import unicodedata


def readable_text(value: str, what: str = "a name") -> str:
    """``value`` stripped, or ValueError (pydantic answers 400 with it) if it would not read as typed.

    Control and format characters are refused by name: U+202E, say, turns the rest of a name
    around on screen, and a line break lets a note pose as another line of a table.
    """
    hidden = next((c for c in value if unicodedata.category(c) in ("Cc", "Cf")), None)
    if hidden is not None:
        raise ValueError(
            f"{what} cannot contain control or format characters (it has U+{ord(hidden):04X}, "
            f"{unicodedata.name(hidden, 'a control character')})"
        )
    if not value.strip():
        raise ValueError(f"{what} needs printable characters, not only spaces")
    if not value.isprintable():
        raise ValueError(f"{what} can only contain printable characters (no line breaks)")
    return value.strip()
