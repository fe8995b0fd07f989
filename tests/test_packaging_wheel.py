"""The wheel is what a person installs: build it from the checkout, install it into a fresh
virtualenv outside the checkout, and use it from a folder that has nothing of the
repository in it. Catches data that ships beside the package but not inside it (theme,
icons, schemas, the bundled integrations), and code that finds them through the checkout.

Kept fast and offline: the build uses the configured package index (a local mirror here),
notch is installed with `--no-deps`, and the fresh venv reaches the dependencies already
installed for the tests through a `.pth` line (the running venv's site-packages holds no
`notch_app`; its editable-install hook is a `.pth` that a path added this way does not run).
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("manifests", "schemas", "resources")
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "notch_app", *SHIPPED)

pytestmark = pytest.mark.packaging


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, (
        f"{' '.join(cmd)} -> {result.returncode}:\n{result.stdout}\n{result.stderr}"
    )
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel file, the fresh venv's bin folder) with notch installed from the wheel."""
    base = tmp_path_factory.mktemp("wheel")
    # Built from a copy: an in-tree build writes build/ and *.egg-info into the checkout
    # other tests are reading. Symlinks are copied as symlinks, as git checks them out.
    source = base / "source"
    source.mkdir()
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(
                src, source / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(src, source / name)
    dist = base / "dist"
    pip = [sys.executable, "-m", "pip"]
    _run([*pip, "wheel", "--no-deps", "--quiet", "-w", str(dist), str(source)], cwd=base)
    (wheel,) = dist.glob("notch-*.whl")

    venv = base / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=base)
    python = venv / "bin" / "python"
    _run(
        [
            *pip,
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        cwd=base,
    )
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=base
    ).strip()
    deps = sysconfig.get_path("purelib")
    (Path(purelib) / "_notch_test_dependencies.pth").write_text(deps + "\n", encoding="utf-8")
    return wheel, venv / "bin"


def _outside_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(HOME=str(home), QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(home / ".config"))
    return env


def test_the_wheel_ships_every_bundled_file(installed: tuple[Path, Path]) -> None:
    wheel, _ = installed
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    missing = [
        f"notch_app/_data/{path.relative_to(ROOT).as_posix()}"
        for folder in SHIPPED
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file() and f"notch_app/_data/{path.relative_to(ROOT).as_posix()}" not in names
    ]
    assert not missing, f"files the wheel leaves out: {missing}"
    # Files that live inside the package (style sheets, py.typed) ship too.
    package = ROOT / "notch_app"
    left_out = [
        rel
        for path in sorted(package.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and not path.is_relative_to(package / "_data")
        and (rel := path.relative_to(ROOT).as_posix()) not in names
    ]
    assert not left_out, f"files in notch_app/ the wheel leaves out: {left_out}"
    assert "notch_app/ui/settings/settings.qss" in names


def test_the_installed_wheel_validates_and_renders_from_outside_the_checkout(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    _, bin_dir = installed
    env = _outside_env(tmp_path)
    where = _run(
        [
            str(bin_dir / "python"),
            "-c",
            "import notch_app; from notch_app.bundled import bundled_folder; "
            "print(notch_app.__file__); print(bundled_folder('manifests'))",
        ],
        cwd=tmp_path,
        env=env,
    ).split()
    package_file, bundled = Path(where[0]), Path(where[1])
    assert not package_file.is_relative_to(ROOT), (
        f"notch_app imported from the checkout: {package_file}"
    )
    assert not bundled.is_relative_to(ROOT), (
        f"bundled integrations read from the checkout: {bundled}"
    )
    assert sorted(p.name for p in bundled.iterdir()) == sorted(
        p.name for p in (ROOT / "manifests").iterdir() if p.is_dir()
    )

    out = _run([str(bin_dir / "notch"), "validate", str(bundled)], cwd=tmp_path, env=env)
    assert "error" not in out

    png = tmp_path / "card.png"
    _run(
        [
            str(bin_dir / "notch"),
            "render",
            str(bundled / "mail"),
            "--tool",
            "send_email",
            "--fixture",
            "-o",
            str(png),
        ],
        cwd=tmp_path,
        env=env,
    )
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    # A card with a title, four fields and two buttons: a blank or unthemed render is a few
    # hundred bytes of flat colour.
    assert width >= 280 and height >= 200
    assert len(data) > 10_000
