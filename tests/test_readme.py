"""Every command in the README works as written.

The README's ```bash blocks are read as a reader would type them, in order, in a fresh folder: a
file a block writes (a heredoc) is written; every ./render.sh command line is checked by the
render's own argument checking in this process (a flag the README gets wrong fails here), and the
cheap ones are run for real (--help, list, script). The renders themselves, ./render.sh and
./render.sh test, are run by the other tests and by CI (.ci/run).
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from scenes import render
from scenes.batch import batch_parser, checked_jobs

PROJECT = Path(__file__).resolve().parents[1]
README = PROJECT / "README.md"
HEREDOC = re.compile(r"^cat > (?P<file>\S+) <<'(?P<end>\w+)'$")
RUN_AS_IS = {"list", "--help"}  # cheap: run for real
RUN_ELSEWHERE = {"test", "setup"}  # the suite itself and the set-up: CI runs them


def readme_blocks() -> list[list[str]]:
    """The lines of each ```bash or ```sh block of the README."""
    blocks, current = [], None
    for line in README.read_text(encoding="utf-8").splitlines():
        if current is None and line.strip() in ("```bash", "```sh"):
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append(current)
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def commands() -> list[tuple[str, list[str] | tuple[str, str]]]:
    """Each command line (its words, comments left out) or heredoc (file, content), in README order."""
    found = []
    for block in readme_blocks():
        lines = iter(block)
        for line in lines:
            heredoc = HEREDOC.match(line.strip())
            if heredoc:
                content = []
                for body in lines:
                    if body.strip() == heredoc["end"]:
                        break
                    content.append(body)
                found.append((line, (heredoc["file"], "\n".join(content) + "\n")))
            elif line.strip():
                found.append((line, shlex.split(line, comments=True)))
    return found


def check(words: list[str], capsys) -> None:
    """What a ./render.sh command line asks for, checked (and run, when cheap)."""
    command = words[1:]
    if command[:1] == ["batch"]:
        args, common = batch_parser().parse_known_args(command[1:])
        checked_jobs(Path(args.file), common)
    elif command[:1] == ["script"]:
        # As written but for one chapter (the narration of all eleven takes a while); it writes the lines
        # that a later `--voice DIR` line of the README then finds.
        assert render.main([*command, "--chapters", "10"]) == 0
        out = Path(command[command.index("--out") + 1])
        assert (out / "lines.tsv").read_text(encoding="utf-8").startswith("10-01\t")
    elif command[:1] == ["list"]:
        assert render.main(command) == 0
        assert len(capsys.readouterr().out.splitlines()) == len(render.CHAPTERS)
    elif command == ["--help"]:
        with pytest.raises(SystemExit) as stopped:
            render.main(command)
        assert stopped.value.code == 0 and "--sentence" in capsys.readouterr().out
    elif command[:1] in (["test"], ["setup"]):
        assert command[1:2] == [] or (PROJECT / command[1]).exists() or command[1].startswith("-")
    else:
        argv = ["--slides", *command[1:]] if command[:1] == ["slides"] else command
        for flag in ("--corpus",):  # the reader's own corpus: the story's stands in for it
            if flag in argv and not Path(argv[argv.index(flag) + 1]).exists():
                shutil.copy(PROJECT / "assets" / "corpus.zh.txt", argv[argv.index(flag) + 1])
        render.request_from(render.parser().parse_args(argv))


def test_the_readme_has_the_two_commands_first():
    first = readme_blocks()[0]
    assert [shlex.split(line, comments=True) for line in first] == [["./render.sh"], ["./render.sh", "test"]]


def test_the_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150


def test_every_command_in_the_readme_works_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    seen = 0
    for line, command in commands():
        if isinstance(command, tuple):  # a file the reader writes first
            Path(command[0]).write_text(command[1], encoding="utf-8")
            continue
        seen += 1
        if command[0] == "./render.sh":
            check(command, capsys)
        elif any(word.endswith("/manim") for word in command):
            script, scene = command[-2:]
            assert f"class {scene}(" in (PROJECT / script).read_text(encoding="utf-8"), line
        else:
            raise AssertionError(f"the README runs {line!r}, which this test does not know how to check")
    assert seen > 10  # the blocks were found and read


def test_a_wrong_flag_in_a_readme_command_would_fail(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("lessons.txt").write_text("狗喜欢抓飞盘\n", encoding="utf-8")
    with pytest.raises(render.UsageError):
        check(["./render.sh", "--chaptres", "5"], capsys)
    with pytest.raises(render.UsageError):
        check(["./render.sh", "batch", "lessons.txt", "--qualty", "h"], capsys)
    with pytest.raises(render.UsageError):
        check(["./render.sh", "--chapters", "5", "--format", "avi"], capsys)


def test_the_readme_s_links_lead_to_files():
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not target.startswith("http"):
            assert (PROJECT / target).exists(), target
