from __future__ import annotations

from triage.web.templatetags.triage_tags import fix_markup


def test_command_lines_after_the_prose_get_copy_buttons() -> None:
    html = fix_markup("Give the container a real /dev/shm:\ndf -h /dev/shm && ls -ld /dev/shm\nNCCL_SHM_DISABLE=1")
    assert html.startswith("Give the container a real /dev/shm:")
    assert html.count('class="copy"') == 2
    assert 'data-copy="df -h /dev/shm &amp;&amp; ls -ld /dev/shm"' in html


def test_quoted_code_in_prose_is_code_without_a_copy_button_and_escaped() -> None:
    html = fix_markup("Run `nvidia-smi -q` then <b>reboot</b>")
    assert '<code>nvidia-smi -q</code>' in html
    assert 'class="copy"' not in html
    assert "&lt;b&gt;reboot&lt;/b&gt;" in html and "<b>" not in html


def test_prose_only() -> None:
    assert 'class="copy"' not in fix_markup("Nothing to run here.")


def test_a_sentence_after_the_commands_is_prose_not_a_command() -> None:
    html = fix_markup("Dump the stacks:\npy-spy dump --pid <pid of the lagging rank>\n"
                      "Raise the timeout (init_process_group(timeout=...)) only when a slow step exceeds it.")
    assert html.count('class="copy"') == 1
    assert "<code>Raise the timeout" not in html and "Raise the timeout" in html


def test_dollar_lines_are_the_commands_of_the_catalog_form() -> None:
    html = fix_markup("Check the GPU, then drain the node.\n$ nvidia-smi -q -d ECC -i <gpu>\nOpen an RMA if it repeats.",
                      {"gpu": 3, "pid": 51205})
    assert html.count('class="copy"') == 1
    assert 'data-copy="nvidia-smi -q -d ECC -i 3"' in html
    assert "$ " not in html and "Open an RMA" in html


def test_known_values_fill_the_placeholders_and_unknown_ones_stay() -> None:
    html = fix_markup("Dump it:\npy-spy dump --pid <pid of the lagging rank>\nnvidia-smi --query-compute-apps=pid --format=csv",
                      {"pid": 51205, "gpu": 3})
    assert 'data-copy="py-spy dump --pid 51205"' in html
    assert 'data-copy="nvidia-smi --query-compute-apps=pid --format=csv -i 3"' in html
    plain = fix_markup("Dump it:\npy-spy dump --pid <pid of the lagging rank>", {})
    assert 'data-copy="py-spy dump --pid &lt;pid of the lagging rank&gt;"' in plain


def test_a_placeholder_takes_only_a_value_of_its_own_kind() -> None:
    # The pid is unknown, the rank is known: '<pid of the lagging rank>' must not become the rank.
    html = fix_markup("Dump it:\npy-spy dump --pid <pid of the lagging rank>", {"rank": 6, "host": "node-b"})
    assert 'data-copy="py-spy dump --pid &lt;pid of the lagging rank&gt;"' in html and "--pid 6" not in html
    # A local rank is not the global rank either.
    local = fix_markup("$ LOCAL_RANK=<local_rank> python train.py\n$ ssh <host>", {"rank": 6, "host": "node-b"})
    assert 'data-copy="LOCAL_RANK=&lt;local_rank&gt; python train.py"' in local and 'data-copy="ssh node-b"' in local
