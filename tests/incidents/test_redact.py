"""The redactor hides real secrets and nothing else: a bug's own words stay readable."""
from __future__ import annotations

import pytest

from triage.incidents.redact import REDACTED, redact_data, redact_text


@pytest.mark.parametrize("line, secret", [
    ("HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFG", "hf_abcdefghijklmnopqrstuvwxyzABCDEFG"),
    ("Authorization: Bearer eyJhbGciOi.abc.def", "eyJhbGciOi.abc.def"),
    ("WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567", "0123456789abcdef"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "wJalrXUtnFEMI"),
    ("using credentials of AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("git clone https://bob:s3cr3t@github.com/org/repo.git", "s3cr3t"),
    ("python train.py --api-key abc123xyz --lr 3e-4", "abc123xyz"),
    ("db_password: 'hunter2'", "hunter2"),
    ("export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("see token hf_ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvu in the env", "hf_ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvu"),
])
def test_real_secrets_are_hidden(line: str, secret: str) -> None:
    shown = redact_text(line)
    assert secret not in shown
    assert REDACTED in shown


@pytest.mark.parametrize("line", [
    "[rank1]: KeyError: 'input_ids'",
    "KeyError: 'attention_mask'",
    "max_new_tokens: 512, num_tokens=2048",
    "TOKENIZERS_PARALLELISM=false",
    "tokenizer: meta-llama/Llama-2-7b",
    "sort_key=rank monkey: banana",
    "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>",
    "https://pytorch.org/docs/stable/notes/cuda.html#environment-variables",
])
def test_everything_else_is_shown_as_logged(line: str) -> None:
    assert redact_text(line) == line


def test_data_keys_follow_the_same_rule() -> None:
    data = {"KeyError": "input_ids", "api_key": "abc", "max_tokens": 5, "env": {"HF_TOKEN": "x", "LOCAL_RANK": "3"}}
    assert redact_data(data) == {"KeyError": "input_ids", "api_key": REDACTED, "max_tokens": 5,
                                 "env": {"HF_TOKEN": REDACTED, "LOCAL_RANK": "3"}}
