#!/usr/bin/env python3
"""The patched copy of the tree that `make planted` builds.

    tree.py prepare [--rev REV]
                      copy the working tree (or commit REV) to target/planted/stage, apply
                      planted.patch there (exactly: a hunk whose context no longer matches fails
                      the run), then bring target/planted/src, the copy cargo builds, up to date
                      with it
    tree.py reject    copy the working tree to target/planted/stage and apply what still applies
                      of planted.patch, leaving a `<file>.rej` beside each file whose hunks did
                      not apply, to put in by hand
    tree.py patch     rewrite planted.patch as the difference between the working tree and
                      target/planted/stage (after editing a planted branch there)

The copy holds what `cargo build` sees in the working tree: the tracked files and the untracked
ones that are not ignored (`git ls-files --cached --others --exclude-standard`), as they are on
disk, committed or not; with `--rev`, the files of that commit. target/planted/stage is a git repository of its own whose one commit is
that unpatched copy, so its diff is the patch. target/planted/src is refreshed file by file and
only a file whose bytes change is rewritten, so cargo rebuilds only what the change touches.
"""

import io
import os
import shutil
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PATCH = HERE / "planted.patch"
PLANTED = ROOT / "target" / "planted"
STAGE = PLANTED / "stage"
SRC = PLANTED / "src"
# Plain git output whatever the user's configuration says.
GIT = ["git", "-c", "core.quotePath=false", "-c", "diff.noprefix=false",
       "-c", "diff.mnemonicPrefix=false", "-c", "diff.renames=false",
       "-c", "user.name=make planted", "-c", "user.email=planted@localhost"]


class Failure(Exception):
    """A step that failed, with what to do about it."""


def git(*args, cwd=ROOT, check=True):
    """Runs git in `cwd`, returning its stdout as bytes."""
    done = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True)
    if check and done.returncode != 0:
        raise Failure(f"git {' '.join(args)} in {cwd}:\n{done.stderr.decode(errors='replace')}")
    return done


def tree_files():
    """The working tree's files cargo sees, relative to ROOT."""
    out = git("ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout
    names = sorted({n for n in out.decode().split("\0") if n})
    return [n for n in names if os.path.lexists(ROOT / n) and not (ROOT / n).is_dir()]


def stage(rev=None):
    """A fresh target/planted/stage: the working tree (or commit `rev`), committed, patch not
    applied."""
    if STAGE.exists():
        shutil.rmtree(STAGE)
    STAGE.mkdir(parents=True)
    if rev:
        archive = git("archive", "--format=tar", rev).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(STAGE, filter="tar")
    else:
        for name in tree_files():
            dest = STAGE / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest, follow_symlinks=False)
    git("init", "-q", cwd=STAGE)
    git("add", "-A", cwd=STAGE)
    git("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", rev or "the working tree",
        cwd=STAGE)


def apply(reject=False):
    """Applies planted.patch to the stage: exactly, or with `--reject`."""
    if not PATCH.is_file():
        raise Failure(f"{PATCH} is missing")
    if reject:
        done = git("apply", "--reject", str(PATCH), cwd=STAGE, check=False)
        sys.stderr.write(done.stderr.decode(errors="replace"))
        sys.stderr.flush()
        rejects = leftovers()
        if rejects:
            print(f"hunks left to put in by hand, in {STAGE}:")
            for r in rejects:
                print(f"  {r}")
            print("then delete the .rej files and run `make planted-patch`")
        else:
            print(f"planted.patch applies: {STAGE}")
        return
    check = git("apply", "--check", str(PATCH), cwd=STAGE, check=False)
    if check.returncode != 0:
        raise Failure(
            "tests/planted/planted.patch no longer applies to the working tree:\n"
            + check.stderr.decode(errors="replace")
            + "\nThe code around a planted branch moved. To update the patch: "
            "`python3 tests/planted/tree.py reject`, put the rejected branches in by hand in "
            "target/planted/stage, then `make planted-patch` (tests/planted/README.md)."
        )
    git("apply", str(PATCH), cwd=STAGE)


def leftovers():
    """The `.rej` and `.orig` files in the stage, relative to it."""
    return sorted(str(p.relative_to(STAGE)) for p in STAGE.rglob("*")
                  if p.suffix in (".rej", ".orig") and ".git" not in p.relative_to(STAGE).parts)


def same(a, b):
    """Whether files `a` and `b` have the same kind, mode bits and contents."""
    if not os.path.lexists(b):
        return False
    sa, sb = os.lstat(a), os.lstat(b)
    if stat.S_IFMT(sa.st_mode) != stat.S_IFMT(sb.st_mode):
        return False
    if stat.S_ISLNK(sa.st_mode):
        return os.readlink(a) == os.readlink(b)
    if stat.S_IMODE(sa.st_mode) != stat.S_IMODE(sb.st_mode) or sa.st_size != sb.st_size:
        return False
    return Path(a).read_bytes() == Path(b).read_bytes()


def sync():
    """Brings SRC up to date with the stage, rewriting only the files that differ."""
    wanted = set()
    for path in STAGE.rglob("*"):
        rel = path.relative_to(STAGE)
        if rel.parts[0] == ".git" or path.is_dir() and not path.is_symlink():
            continue
        wanted.add(rel)
        dest = SRC / rel
        if same(path, dest):
            continue
        if os.path.lexists(dest):
            if dest.is_dir() and not dest.is_symlink():
                shutil.rmtree(dest)
            else:
                dest.unlink()
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, dest, follow_symlinks=False)
    modules = SRC / "node_modules"
    if not modules.is_symlink():
        if modules.exists():
            shutil.rmtree(modules)
        modules.symlink_to(ROOT / "node_modules")
    wanted.add(Path("node_modules"))
    for path in sorted(SRC.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        rel = path.relative_to(SRC)
        if rel.parts[0] == "node_modules":
            continue
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                path.rmdir()
        elif rel not in wanted:
            path.unlink()


def regenerate():
    """Rewrites planted.patch from the stage."""
    if not (STAGE / ".git").is_dir():
        raise Failure(f"no {STAGE}: run `python3 tests/planted/tree.py reject` first")
    rejects = leftovers()
    if rejects:
        raise Failure("unresolved hunks in the stage: " + ", ".join(rejects))
    git("add", "-A", cwd=STAGE)
    diff = git("diff", "--cached", "--no-color", "--no-ext-diff", "--src-prefix=a/",
               "--dst-prefix=b/", cwd=STAGE).stdout
    if not diff:
        raise Failure(f"{STAGE} is the working tree unchanged: the patch would be empty")
    PATCH.write_bytes(diff)
    files = [line.split(" b/", 1)[1] for line in diff.decode().splitlines()
             if line.startswith("diff --git ")]
    print(f"wrote {PATCH.relative_to(ROOT)}: {len(files)} files")
    for f in files:
        print(f"  {f}")


def main(argv):
    rev = None
    if len(argv) == 4 and argv[1] == "prepare" and argv[2] == "--rev":
        rev = argv[3]
    elif len(argv) != 2 or argv[1] not in ("prepare", "reject", "patch"):
        sys.stderr.write(__doc__)
        return 2
    try:
        if argv[1] == "prepare":
            stage(rev)
            apply()
            sync()
            print(f"planted tree: {SRC.relative_to(ROOT)} ({rev or 'the working tree'})")
        elif argv[1] == "reject":
            stage()
            apply(reject=True)
        else:
            regenerate()
    except Failure as e:
        sys.stderr.write(f"error: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
