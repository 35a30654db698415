"""Secrets out of what is shown: a display-time filter over log lines, evidence, diagnosis data.

The raw bundle stays untouched (team members can download it); everything a page, the API or a
share link shows passes through here first. Only real secrets go: values of
variables and options whose name says secret (token, password, secret, credential, api/access/
private key...), Authorization headers, credentials inside URLs, and keys recognisable by their
shape (AWS, Hugging Face, GitHub...). Names stay, so an SRE still sees *that* a variable was
set; everything else (a `KeyError: 'input_ids'`, `max_new_tokens: 512`) is shown as logged.
"""
from __future__ import annotations

import re
from typing import Any

REDACTED = "[redacted]"

# A name that says it holds a secret: HF_TOKEN, WANDB_API_KEY, AWS_SECRET_ACCESS_KEY, db_password,
# --api-key, GOOGLE_APPLICATION_CREDENTIALS. Not a bare "key" (KeyError: 'input_ids', sort_key)
# nor "tokens"/"tokenizer" (max_new_tokens: 512, TOKENIZERS_PARALLELISM=false).
_SECRET_WORD = (
    r"(?:token(?!s|i[sz])|passw(?:or)?d|passwd|secret|credential|"
    r"(?:api|access|private|auth|ssh|signing|encryption|master|client|license)[_.-]?key)"
)
_SECRET_NAME = r"[A-Za-z0-9_.-]*" + _SECRET_WORD + r"[A-Za-z0-9_.-]*"
_SECRET_KEY = re.compile(r"(?i)" + _SECRET_WORD)

_PATTERNS = [
    # Authorization: Bearer abc / Basic abc (headers in curl -v output, HTTP client logs).
    (re.compile(r"(?i)(\bauthorization\b\s*[:=]\s*[\"']?\s*(?:bearer|basic|token|digest)?\s*)[^\s\"',;]+"),
     r"\1" + REDACTED),
    # Bare "Bearer abc" in any other context.
    (re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"), r"\1" + REDACTED),
    # --api-key abc, --token=abc, -password abc (command lines).
    (re.compile(r"(?i)((?<![A-Za-z0-9])--?" + _SECRET_NAME + r")(\s*=\s*|\s+)(?![-\s])([\"']?)[^\s\"']+\3"),
     r"\1\2\3" + REDACTED + r"\3"),
    # NAME=value, NAME: value, "name": "value" (env dumps, configs, JSON).
    (re.compile(r"(?i)(?<![A-Za-z0-9_.-])([\"']?" + _SECRET_NAME + r"[\"']?\s*(?:=|:)\s*)"
                r"([\"']?)(?!\[redacted\])[^\s\"',;}]+\2"),
     r"\1\2" + REDACTED + r"\2"),
    # Credentials inside a URL: https://user:pass@host, redis://:pass@host.
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*:)[^/\s@]+@"), r"\1" + REDACTED + "@"),
    # Keys recognisable by their shape wherever they appear: AWS access key ids, Hugging Face,
    # GitHub, OpenAI-style and Slack tokens.
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), REDACTED),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"), REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{20,}\b"), REDACTED),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"), REDACTED),
]
# Cheap pre-check: most lines mention none of these and skip the patterns.
_ANY = re.compile(r"(?i)token|passw|secret|credential|key|bearer|authorization|://|AKIA|ASIA|hf_|gh[pousr]_|sk-|xox")


def redact_text(text: str) -> str:
    """`text` with the values of secret-looking variables, options and headers replaced."""
    if not text or not _ANY.search(text):
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact_problem(text: str) -> str:
    """One of the engine's read problems, "<member name>: <what happened>": the name is the
    engine's, never a `name: value` pair (`node-a/api_token.bin: binary file skipped` would
    lose its name); what follows it may quote data, and is redacted."""
    prefix = ""
    for lead in ("limit reached: ",):
        if text.startswith(lead):
            prefix, text = lead, text[len(lead):]
    name, sep, rest = text.partition(": ")
    if not sep:
        return prefix + redact_text(text)
    return prefix + name + sep + redact_text(rest)


def redact_data(value: Any) -> Any:
    """A copy of JSON-like data with secret-named keys' values and secrets inside strings
    replaced (diagnosis data, timeline, environment dicts)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            secret = isinstance(key, str) and _SECRET_KEY.search(key)
            if secret and isinstance(item, (str, int, float)) and not isinstance(item, bool):
                out[key] = REDACTED
            elif key == "problems" and isinstance(item, list):
                out[key] = [redact_problem(p) if isinstance(p, str) else redact_data(p) for p in item]
            else:
                out[key] = redact_data(item)
        return out
    if isinstance(value, list):
        return [redact_data(item) for item in value]
    return value
