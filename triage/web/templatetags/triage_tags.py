"""Template helpers. Everything from a log or a diagnosis is escaped here (format_html)."""
from __future__ import annotations

import re
from urllib.parse import urlencode

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from triage.incidents.redact import redact_text

register = template.Library()

# `command` spans (single backticks) and ```blocks``` in a fix are commands worth copying.
_CODE = re.compile(r"```(?:[a-z]*\n)?(.*?)```|`([^`\n]+)`", re.DOTALL)


@register.filter
def fix_markup(text: str) -> SafeString:
    """The fix, escaped: prose, then each command line in a <code> with its own copy button.

    The engine writes a fix as prose ending with ":" followed by one command a line; `quoted`
    spans inside the prose are commands too.
    """
    prose, commands = _split_fix(text or "")
    html = format_html_join("", "{}", ((_prose_part(kind, value),) for kind, value in _inline(prose) if value))
    if commands:
        html += format_html(
            '<span class="cmd-block">{}</span>',
            format_html_join("", "{}", ((_command(c),) for c in commands)),
        )
    return html


def _split_fix(text: str) -> tuple[str, list[str]]:
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        if line.rstrip().endswith(":"):
            return "\n".join(lines[: i + 1]), [c.strip() for c in lines[i + 1 :] if c.strip()]
    return text, []


def _inline(text: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    last = 0
    for match in _CODE.finditer(text):
        parts.append(("text", text[last : match.start()]))
        parts.append(("code", (match.group(1) if match.group(1) is not None else match.group(2)).strip()))
        last = match.end()
    parts.append(("text", text[last:]))
    return parts


def _prose_part(kind: str, value: str) -> SafeString:
    return format_html("{}", value) if kind == "text" else _command(value)


def _command(value: str) -> SafeString:
    return format_html(
        '<span class="cmd"><code>{}</code><button type="button" class="copy" data-copy="{}" '
        'title="Copy to clipboard">copy</button></span>',
        value, value,
    )


@register.simple_tag
def log_url(base: str, source: str, line: int | None = None) -> str:
    """The log viewer (at `base`: the team's or a share link's) at this line of this source."""
    query = {"source": source}
    anchor = ""
    if line:
        query["line"] = str(line)
        anchor = f"#L{line}"
    return f"{base}?{urlencode(query)}{anchor}"


@register.filter
def redact(text: object) -> str:
    """Secrets (TOKEN=..., Authorization: Bearer ..., --api-key ...) out of shown text."""
    return redact_text("" if text is None else str(text))


@register.filter
def get_item(values: list[object], index: int) -> object:
    return values[index]
