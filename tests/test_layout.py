"""Which words of a long sentence a chapter draws."""

from hypothesis import given
from hypothesis import strategies as st

from scenes.layout import drawn_slots


def test_a_sentence_that_fits_is_drawn_whole():
    assert drawn_slots(5, [4], 8) == [0, 1, 2, 3, 4]


@given(count=st.integers(1, 40), room=st.integers(7, 14), data=st.data())
def test_a_long_sentence_keeps_its_ends_and_the_words_asked_for_and_elides_the_rest(count, room, data):
    keep = data.draw(st.lists(st.integers(0, count - 1), max_size=2))
    slots = drawn_slots(count, keep, room)
    words = [j for slot in slots for j in ([slot] if isinstance(slot, int) else slot)]
    assert words == list(range(count))  # every word once, in order
    assert len(slots) == min(count, room)
    drawn = {slot for slot in slots if isinstance(slot, int)}
    assert {0, count - 1, *keep} <= drawn
    assert all(isinstance(a, int) or isinstance(b, int) for a, b in zip(slots, slots[1:]))  # no two "⋯" in a row
    assert all(len(slot) > 1 for slot in slots if isinstance(slot, range))  # a "⋯" stands for two words or more
