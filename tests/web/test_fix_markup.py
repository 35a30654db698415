from __future__ import annotations

from triage.web.templatetags.triage_tags import fix_markup


def test_command_lines_after_the_prose_get_copy_buttons() -> None:
    html = fix_markup("Give the container a real /dev/shm:\ndf -h /dev/shm && ls -ld /dev/shm\nNCCL_SHM_DISABLE=1")
    assert html.startswith("Give the container a real /dev/shm:")
    assert html.count('class="copy"') == 2
    assert 'data-copy="df -h /dev/shm &amp;&amp; ls -ld /dev/shm"' in html


def test_quoted_commands_in_prose_and_escaping() -> None:
    html = fix_markup("Run `nvidia-smi -q` then <b>reboot</b>")
    assert '<code>nvidia-smi -q</code>' in html
    assert "&lt;b&gt;reboot&lt;/b&gt;" in html and "<b>" not in html


def test_prose_only() -> None:
    assert 'class="copy"' not in fix_markup("Nothing to run here.")
