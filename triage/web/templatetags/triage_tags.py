"""Template helpers. Everything from a log or a diagnosis is escaped here (format_html)."""
from __future__ import annotations

import re
from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()

# `command` spans (single backticks) and ```blocks``` in a fix are commands worth copying.
_CODE = re.compile(r"```(?:[a-z]*\n)?(.*?)```|`([^`\n]+)`", re.DOTALL)


@register.filter
def fix_markup(text: str) -> SafeString:
    """The fix text, escaped, with each command in a <code> and its own copy button."""
    parts: list[tuple[str, str]] = []
    last = 0
    for match in _CODE.finditer(text or ""):
        parts.append(("text", text[last : match.start()]))
        parts.append(("code", (match.group(1) if match.group(1) is not None else match.group(2)).strip()))
        last = match.end()
    parts.append(("text", (text or "")[last:]))
    return format_html_join(
        "", "{}", ((_fix_part(kind, value),) for kind, value in parts if value)
    )


def _fix_part(kind: str, value: str) -> SafeString:
    if kind == "text":
        return format_html("{}", value)
    return format_html(
        '<span class="cmd"><code>{}</code><button type="button" class="copy" data-copy="{}" '
        'title="Copy to clipboard">copy</button></span>',
        value, value,
    )


@register.simple_tag
def log_url(incident_id: str, source: str, line: int | None = None) -> str:
    """The log viewer at this line of this source."""
    query = {"source": source}
    anchor = ""
    if line:
        query["line"] = str(line)
        anchor = f"#L{line}"
    return f"{reverse('web:incident-log', args=[incident_id])}?{urlencode(query)}{anchor}"


@register.filter
def get_item(values: list[object], index: int) -> object:
    return values[index]
