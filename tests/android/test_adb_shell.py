"""The served phone's shell in-process: sh's grammar as controllers use it, the files (Markor's
notebook mounted in them) and the SMS provider, each change made through the phone's own data."""

from __future__ import annotations

import datetime as dt

import pytest

from gui_gym.android.actions import Action
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.device import Device

MARKOR = "/sdcard/Documents/Markor"


@pytest.fixture
def sh() -> Shell:
    device = Device()
    device.reset(now=dt.datetime(2023, 10, 15, 15, 34))
    return Shell(device)


def out(sh: Shell, line: str) -> str:
    result = sh.run(line)
    assert result.status == 0, result.stderr
    return result.stdout.decode()


def test_if_then_else_and_the_operators(sh: Shell) -> None:
    probe = 'if [ -d {} ]; then echo "Exists"; else echo "Does not exist"; fi'
    assert out(sh, probe.format("/sdcard")) == "Exists\n"
    assert out(sh, probe.format("/sdcard/nowhere")) == "Does not exist\n"
    assert out(sh, "if false; then echo a; elif true; then echo b; fi; echo c") == "b\nc\n"
    assert out(sh, "false || echo x && echo y\necho z") == "x\ny\nz\n"  # a line break ends a command
    assert out(sh, "echo 'if' then") == "if then\n"  # a quoted or argument keyword is a word
    for bad in ("if true; then echo a", "fi", "echo a; (echo b)", "echo a |", "echo <<EOF"):
        result = sh.run(bad)
        assert result.status == 2 and b"syntax error" in result.stderr, bad


def test_redirections_write_the_phones_files(sh: Shell) -> None:
    assert out(sh, "echo one > /sdcard/a.txt; echo two >> /sdcard/a.txt; cat /sdcard/a.txt") == "one\ntwo\n"
    assert out(sh, "cat < /sdcard/a.txt | grep two") == "two\n"
    assert out(sh, "ls /nowhere 2>/dev/null; echo ok") == "ok\n"
    assert out(sh, "ls /nowhere 2>&1 | grep -c x || true") == ""  # stderr joined into the pipe
    assert "No such file" in out(sh, "cat /nowhere 2>&1; true")
    result = sh.run("echo x > /no/such/dir/f")
    assert result.status == 1 and b"can't create" in result.stderr
    assert sh.files["/sdcard/a.txt"] == b"one\ntwo\n"


def test_globs_expand_over_the_phones_files_and_quoted_ones_stay(sh: Shell) -> None:
    out(sh, "mkdir -p /sdcard/g/sub && touch /sdcard/g/a.md /sdcard/g/b.txt /sdcard/g/sub/c.md")
    assert out(sh, "echo /sdcard/g/*.md") == "/sdcard/g/a.md\n"
    assert out(sh, "echo /storage/emulated/0/g/*") == (
        "/storage/emulated/0/g/a.md /storage/emulated/0/g/b.txt /storage/emulated/0/g/sub\n"
    )
    assert out(sh, "echo /sdcard/g/*/?.md '/sdcard/g/*' /sdcard/none/*") == (
        "/sdcard/g/sub/c.md /sdcard/g/* /sdcard/none/*\n"
    )  # a quoted glob is text, one matching nothing stays as written
    out(sh, "rm -r /sdcard/g/*")
    assert out(sh, "ls /sdcard/g") == ""


def test_what_would_run_or_substitute_is_still_refused(sh: Shell) -> None:
    for line in ("echo $(id)", "echo `id`", "echo ${HOME}", "echo $HOME", 'echo "$(id)"'):
        result = sh.run(line)
        assert result.status == 2 and b"not supported" in result.stderr, line


def test_file_commands(sh: Shell) -> None:
    out(
        sh,
        "mkdir -p /sdcard/d/e && printf '%s|%d\\n' a 1 b 2 > /sdcard/d/f && touch -d '2023-01-02 03:04:05' /sdcard/d/f",
    )
    assert sh.files["/sdcard/d/f"] == b"a|1\nb|2\n"
    assert out(sh, "find /sdcard/d") == "/sdcard/d\n/sdcard/d/e\n/sdcard/d/f\n"
    assert out(sh, "find /sdcard/d -mindepth 1 -type f") == "/sdcard/d/f\n"
    assert out(sh, "find /sdcard/d -name 'e' -o -name f") == "/sdcard/d/e\n/sdcard/d/f\n"
    assert out(sh, "find /sdcard/d ! -type d") == "/sdcard/d/f\n"
    assert out(sh, "stat -c '%n %s %Y' /sdcard/d/f") == "/sdcard/d/f 8 1672628645\n"
    assert out(sh, "ls -l /sdcard/d").splitlines()[2].endswith(" 8 2023-01-02 03:04 f")
    assert out(sh, "[ -f /sdcard/d/f ] && [ ! -d /sdcard/d/f ] && test a != b && echo yes") == "yes\n"
    out(sh, "find /sdcard/d -type f -delete")
    assert "/sdcard/d/f" not in sh.files and "/sdcard/d/e" in sh.dirs
    assert sh.run("rm -r /sdcard").status == 1 and "/sdcard" in sh.dirs  # storage itself stays


def test_markors_notebook_is_the_folder(sh: Shell) -> None:
    """A note written with echo shows in the Markor app; one the app creates reads back with cat."""
    device = sh.device
    out(sh, f"mkdir -p {MARKOR}/Work && echo 'plan: ship' > {MARKOR}/Work/plan.md")
    notes = device.data("markor")
    assert notes.get("Work").is_dir and notes.get("Work/plan.md").content == "plan: ship\n"
    device.act(Action("launch", app="Markor"))
    assert any(n.text == "Work" for n in device.tree().walk())
    notes.add("ideas.md", content="# Ideas")
    assert out(sh, "cat /storage/emulated/0/Documents/Markor/ideas.md") == "# Ideas"
    assert out(sh, f"ls -1 {MARKOR}") == "Work\nideas.md\n"
    out(sh, f"rm -r {MARKOR}/Work")
    assert notes.get("Work") is None and notes.get("Work/plan.md") is None and notes.get("ideas.md")


def test_the_sms_provider(sh: Shell) -> None:
    device = sh.device
    out(sh, "content delete --uri content://sms")
    assert out(sh, "content query --uri content://sms") == "No result found.\n"
    out(sh, "content insert --uri content://sms/inbox --bind address:s:+15551234567 "
            "--bind 'body:s:two\nlines, a=b' --bind date:l:1697380000000")  # fmt: skip
    out(sh, "content insert --uri content://sms --bind address:s:+15551234567 --bind body:s:Reply --bind type:i:2")
    conv = device.data("messages").get("5551234567")
    assert [(m.text, m.incoming) for m in conv.messages] == [("two\nlines, a=b", True), ("Reply", False)]
    rows = out(sh, "content query --uri content://sms --projection type:body --sort 'date ASC'")
    assert rows == "Row: 0 type=1, body=two\nlines, a=b\nRow: 1 type=2, body=Reply\n"
    assert out(sh, "content query --uri content://sms/sent --projection body") == "Row: 0 body=Reply\n"
    assert device.data("messages").log == []  # a provider row is no message the app sent
    for bad in ("content insert --uri content://sms --bind body:x:1", "content query --uri content://sms --where 'a=1'",
                "content query --uri content://nope", "content update --uri content://sms"):  # fmt: skip
        assert sh.run(bad).status == 1 and sh.run(bad).stderr, bad
    out(sh, "pm clear com.simplemobiletools.smsmessenger")  # the app's own data; the messages stay
    assert device.data("messages").get("5551234567") is not None
    out(sh, "pm clear com.android.providers.telephony")
    assert device.data("messages").conversations == []


def test_find_delete_prints_nothing_and_data_media_is_the_shared_storage(sh: Shell) -> None:
    """toybox ``find`` with ``-delete`` (an action) prints nothing unless ``-print`` is given; the
    emulated storage's backing path ``/data/media/0`` is ``/sdcard`` (AndroidWorld reads OsmAnd's
    files there)."""
    out(sh, "mkdir -p /sdcard/x && touch /sdcard/x/a.txt /sdcard/x/b.txt")
    assert out(sh, "ls /data/media/0/x") == "a.txt\nb.txt\n"
    assert out(sh, "find /storage/emulated/0/x -type f -name a.txt -delete") == ""
    assert out(sh, "find /sdcard/x -type f -print -delete") == "/sdcard/x/b.txt\n"
    assert out(sh, "ls /sdcard/x") == ""
