"""Stage 06's near-miss check at the edge its surviving mutant found: the coaching says
on which side of the JSON the extra text was, so the model knows what to drop."""

from __future__ import annotations

from helpers import load_stage

LOOP06 = load_stage("06", "loop")
CALL = '{"tool": "now", "args": {}}'


def test_the_near_miss_names_the_side_the_extra_text_is_on():
    before = LOOP06._near_miss(f"Let me check.\n{CALL}")
    after = LOOP06._near_miss(f"{CALL}\nThat should do it.")
    assert "before" in before and "after" not in before
    assert "after" in after and "before" not in after
    assert LOOP06._near_miss(f"Sure.\n{CALL}\nDone.") is None, "prose on both sides: quoted"
