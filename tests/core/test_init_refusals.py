"""`notch init` refuses what it cannot make right — a non-empty folder, a name that makes
no id — with a message naming the place and the fix, exit 2, and nothing written; and a
failure midway leaves nothing half-made."""

from __future__ import annotations

from pathlib import Path

import pytest

from notch_app.cli import main


def init(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["init", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def listing(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_a_non_empty_folder_is_refused_and_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "manifest.json").write_text("my own work")
    code, out, err = init(capsys, str(folder), "--name", "Tasks")
    assert (code, out) == (2, "")
    assert err == (
        f"notch init: {folder} is not empty (manifest.json); notch init never writes over "
        "files: give a new or empty folder\n"
    )
    assert listing(tmp_path) == ["mine", "mine/manifest.json"]
    assert (folder / "manifest.json").read_text() == "my own work"


def test_a_folder_holding_only_a_hidden_file_is_not_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "repo"
    (folder / ".git").mkdir(parents=True)
    code, _, err = init(capsys, str(folder), "--name", "Tasks")
    assert code == 2 and "is not empty (.git)" in err
    assert listing(tmp_path) == ["repo", "repo/.git"]


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("a-file", "is a file; give a new folder's path"),
        ("no/such/parent", "does not exist; create it first"),
        ("a-link", "is a symbolic link"),
    ],
)
def test_a_target_that_is_no_new_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, said: str
) -> None:
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "a-link").symlink_to(tmp_path / "elsewhere")
    before = listing(tmp_path)
    code, _, err = init(capsys, str(tmp_path / target), "--name", "Tasks")
    assert code == 2 and said in err
    assert listing(tmp_path) == before


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("!!!", "has no Latin letter or digit to make an id from; give the id yourself"),
        ("日本語", "e.g. --id com.example.tasks"),
        ("   ", "--name is empty"),
        ("x" * 61, "--name is 61 characters; keep it to 60"),
        ("Tasks\u202eevil", "holds U+202E, a control or invisible character"),
        ("Tasks\nSecond line", "holds U+000A"),
        ("Tasks {{title}}", "which a card reads as a binding"),
        ("Tasks <<note>>", "which a card reads as a binding"),
    ],
)
def test_a_name_that_makes_no_valid_integration_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, said: str
) -> None:
    code, out, err = init(capsys, str(tmp_path / "new"), "--name", name)
    assert (code, out) == (2, "")
    assert err.startswith("notch init: --name") and said in err
    assert listing(tmp_path) == []


def test_a_name_without_latin_letters_works_with_an_id_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = init(
        capsys, str(tmp_path / "new"), "--name", "日本語", "--id", "com.example.nihongo"
    )
    assert code == 0, err
    assert (tmp_path / "new" / "icon.png").is_file()


@pytest.mark.parametrize(
    "bad_id", ["Tasks", "com..example", "com.Example.tasks", "com.example.tasks/.."]
)
def test_an_id_that_is_not_reverse_dns_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_id: str
) -> None:
    code, _, err = init(capsys, str(tmp_path / "new"), "--name", "Tasks", "--id", bad_id)
    assert code == 2 and "is not a reverse-DNS id" in err
    assert listing(tmp_path) == []


def test_a_failure_midway_leaves_nothing_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills up while the icon is written, after the text files: no DIR, no
    hidden staging folder, a message that says nothing was written."""
    import notch_app.commands.init as init_command

    def disk_full(names: object) -> bytes:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(init_command, "monogram_png", disk_full)
    code, _, err = init(capsys, str(tmp_path / "new"), "--name", "Tasks")
    assert code == 2
    assert err == (
        f"notch init: could not write {tmp_path / 'new'} (No space left on device); nothing "
        "was written\n"
    )
    assert listing(tmp_path) == []


def test_a_folder_filled_while_init_works_keeps_its_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program writes into the empty DIR between the check and the move: init
    refuses at the move, and the other program's file is all DIR holds."""
    import notch_app.commands.init as init_command

    folder = tmp_path / "shared"
    folder.mkdir()
    real = init_command.monogram_png

    def racing(names: init_command.ScaffoldNames) -> bytes:
        (folder / "theirs.txt").write_text("theirs")
        return real(names)

    monkeypatch.setattr(init_command, "monogram_png", racing)
    code, _, err = init(capsys, str(folder), "--name", "Tasks")
    assert code == 2 and "was filled by something else while notch init worked" in err
    assert listing(tmp_path) == ["shared", "shared/theirs.txt"]


def test_a_template_that_would_not_validate_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The self-check: whatever makes the filled-in folder fail `notch validate` (here, a
    binding misspelt in the template), no folder appears and the error says where."""
    import notch_app.commands.init as init_command

    real = init_command._fill

    def broken(staging: Path, names: init_command.ScaffoldNames) -> None:
        real(staging, names)
        manifest = staging / "manifest.json"
        manifest.write_text(manifest.read_text().replace('"{{title}}"', '"{{titel}}"'))

    monkeypatch.setattr(init_command, "_fill", broken)
    code, _, err = init(capsys, str(tmp_path / "new"), "--name", "Tasks")
    assert code == 2
    assert "would not pass notch validate, so nothing was written" in err
    assert f"{tmp_path / 'new' / 'manifest.json'}:" in err and "binding-unknown-argument" in err
    assert listing(tmp_path) == []
