"""The `tao` command, one module per verb family.

- `command.py`: the argument parser and `main()`, the console script's entry point;
- `stage_verbs.py`: list, run, tour, doctor;
- `stage_diff.py`: diff, code first;
- `exercise_verbs.py`: check, hint, reset, solution; `exercise_watch.py`: watch;
- `exercise_state.py`: the exercise list (info.toml) and each exercise's status;
- `exercise_runner.py`: the exercise test runner; `exercise_screen.py`: what they show;
- `book.py`: book, the kit as a static site (English and French);
- `compare.py`: compare; `replay.py`: replay (a recorded session again);
- `debug.py`: debug, a stage's loop paused at every step (`debug_edits.py`: what it keeps);
- `repo.py`: the repository's paths and the one stage finder (tests and exercises use it too).

`main` is imported on first call, so `from tao.repo import load_stage` (what
exercises and tests do) does not load the whole command and rich with it.
"""


def main(argv: list[str] | None = None) -> int:
    """Run the `tao` command (see command.py)."""
    from .command import main as run

    return run(argv)


__all__ = ["main"]
