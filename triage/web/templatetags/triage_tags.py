"""Template helpers. Everything from a log or a diagnosis is escaped here (format_html)."""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from triage.incidents.redact import redact_text

register = template.Library()

# `command` spans (single backticks) and ```blocks``` in a fix are shown as code.
_CODE = re.compile(r"```(?:[a-z]*\n)?(.*?)```|`([^`\n]+)`", re.DOTALL)
# A sentence, not a command: "Raise the timeout ... only when ...", "Leave headroom for ...".
_SENTENCE = re.compile(r"^[A-Z][a-z]+ [a-z(]")
# Placeholders the engine leaves in commands when it does not know the value.
_PLACEHOLDER = re.compile(r"<([a-z][a-z _-]{0,40})>")
_PLACEHOLDER_KINDS = {"pid": "pid", "gpu": "gpu", "device": "gpu", "host": "host", "hostname": "host",
                      "node": "host", "rank": "rank"}


@register.filter
def fix_markup(text: str, values: dict[str, Any] | None = None) -> SafeString:
    """The fix, escaped: prose as text, each command line in a <code> with its own copy button.

    Commands are lines starting with `$ ` (the signature catalog's form); in the older form, the
    lines after the prose that ends with ":" which do not read as a sentence. Placeholders such as
    `<gpu>` or `<pid of the lagging rank>` are filled from `values` (what the finding knows), and
    `nvidia-smi` queries get `-i <gpu>` when the finding names one GPU; otherwise left as written.
    """
    html = SafeString("")
    block: list[SafeString] = []
    for kind, value in _split_fix(text or "") + [("end", "")]:
        if kind == "command":
            block.append(_command(fill_values(value, values or {})))
            continue
        if block:  # consecutive commands stand one per line
            html += format_html('<span class="cmd-block">{}</span>', format_html_join("", "{}", ((c,) for c in block)))
            block = []
        html += format_html_join("", "{}", ((_prose_part(k, v),) for k, v in _inline(value) if v))
    return html


def _split_fix(text: str) -> list[tuple[str, str]]:
    lines = text.split("\n")
    if any(line.startswith("$ ") for line in lines):
        out: list[tuple[str, str]] = []
        for line in lines:
            if line.startswith("$ "):
                out.append(("command", line[2:].strip()))
            elif line.strip():
                out.append(("prose", (" " if out else "") + line))
        return out
    for i, line in enumerate(lines[:-1]):
        if line.rstrip().endswith(":"):
            out = [("prose", "\n".join(lines[: i + 1]))]
            for rest in lines[i + 1 :]:
                if not rest.strip():
                    continue
                out.append(("prose", " " + rest.strip()) if _SENTENCE.match(rest.strip())
                           else ("command", rest.strip()))
            return out
    return [("prose", text)]


def fill_values(command: str, values: dict[str, Any]) -> str:
    """`<gpu>`, `<pid ...>`, `<host>`, `<rank>` replaced by the values the finding knows."""
    gpu = values.get("gpu")

    def known(match: re.Match[str]) -> str:
        # A placeholder is filled only with a value of its own kind, named by its first word:
        # `<pid of the lagging rank>` is a pid (never the rank), `<rank>` a rank.
        head = re.split(r"[\s_-]", match.group(1), maxsplit=1)[0]
        key = _PLACEHOLDER_KINDS.get(head)
        if key is not None and values.get(key) not in (None, ""):
            return str(values[key])
        return match.group(0)

    command = _PLACEHOLDER.sub(known, command)
    if (gpu not in (None, "") and command.startswith("nvidia-smi") and re.search(r"--query-|\s-q\b", command)
            and not re.search(r"\s(?:-i|--id)[\s=]", command)):
        head, sep, comment = command.partition("  #")
        command = f"{head.rstrip()} -i {gpu}" + (f"  #{comment}" if sep else "")
    return command


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
    # Code quoted inside a sentence is shown as code; only command lines get a copy button.
    return format_html("{}", value) if kind == "text" else format_html("<code>{}</code>", value)


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


@register.filter
def logtime(value: object) -> str:
    """An engine ISO time as people read it: '2026-08-16 20:39:36.709633' (zone kept if given);
    a time whose year is unknown ('--08-16T20:39:36', model.yearless): '08-16 20:39:36'."""
    text = "" if value is None else str(value)
    return text.removeprefix("--").replace("T", " ", 1)


# NCCL "WARN", torch "[E0816 ...", Python "ERROR", tracebacks and fatal signals; "[W..." warnings.
_ERROR_LINE = re.compile(
    r"\b(?:ERROR|FATAL|CRITICAL|Traceback|Error:|Exception:|Segmentation fault|SIGKILL|SIGABRT|Killed)\b|\["
    r"(?:rank\d+\]:\[)?[EF]\d{3,4} |^[EF]\d{3,4} ")
_WARN_LINE = re.compile(r"\b(?:WARN|WARNING|Warning:)\b|\[(?:rank\d+\]:\[)?W\d{3,4} |^W\d{3,4} ")


@register.filter
def loglevel(text: object) -> str:
    """A CSS class for a log line's level, so errors and warnings stand out while scrolling."""
    line = "" if text is None else str(text)[:400]
    if _ERROR_LINE.search(line):
        return "lvl-error"
    if _WARN_LINE.search(line):
        return "lvl-warn"
    return ""


@register.filter
def mentions(text: object, names: list[str] | None = None) -> SafeString:
    """A comment's text, escaped, with @name of the team members it mentions highlighted."""
    from triage.incidents.workflow import MENTION_RE

    body, known = redact_text("" if text is None else str(text)), set(names or [])
    parts: list[SafeString] = []
    last = 0
    for match in MENTION_RE.finditer(body):
        name = match.group(1).rstrip(".")
        if name not in known:
            continue
        parts.append(format_html("{}<span class=\"mention\">@{}</span>", body[last:match.start()], name))
        last = match.start() + 1 + len(name)
    parts.append(format_html("{}", body[last:]))
    return format_html_join("", "{}", ((p,) for p in parts))


@register.simple_tag
def when(value: Any, relative: bool = False) -> SafeString:
    """A <time> the browser shows in the viewer's zone (common.js: the zone setting, else the
    browser's), with UTC in its tooltip; `relative` shows "3 h ago" instead. Without script:
    UTC, said so."""
    if value is None or value == "":
        return format_html("{}", "")
    iso = value.isoformat() if hasattr(value, "isoformat") else str(value)
    utc = value.strftime("%Y-%m-%d %H:%M UTC") if hasattr(value, "strftime") else logtime(value)
    return format_html('<time class="when" datetime="{}"{} title="{}">{}</time>', iso,
                       mark_safe(' data-relative="1"') if relative else "", utc, utc)
