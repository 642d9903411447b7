"""What is safe to print: model, tool and server text with its control characters shown.

    visible("\\x1b[2J")   # -> the four characters \\x1b[2J, never a cleared screen

A leaf module (no imports), so the providers, the trace, the terminal and the wire view
all use this one table.
"""

# C0 and C1 control characters (all but newline and tab), bidi overrides and lone
# surrogates, each mapped to the escape that names it: shown, never executed.
_HIDDEN = [*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F),
           *range(0x2066, 0x206A), *range(0xD800, 0xE000)]
_VISIBLE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _HIDDEN
            if chr(c) not in "\n\t"}


def visible(text: str) -> str:
    """`text` safe for a terminal: control characters shown as escapes like `\\x1b`."""
    return text.replace("\r\n", "\n").translate(_VISIBLE)
