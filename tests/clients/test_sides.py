"""The clients name score sides from the table's shape (seats, sides), never from a game's
name: the Game contract says partners sit ``s`` and ``s + sides`` apart (issue 17)."""

from __future__ import annotations

from referee_clients.render import scores_text, side_name


def test_partnership_sides_are_teams_of_facing_seats() -> None:
    # Belot, Coinche, Euchre, Pedro: four seats, two teams (BG/CO/EU/PE: seats 0 & 2, 1 & 3).
    assert side_name(0, 4, 2) == "team 0 (seats 0 & 2)"
    assert side_name(1, 4, 2) == "team 1 (seats 1 & 3)"
    assert scores_text([5, 9], 4) == "team 0 (seats 0 & 2) 5, team 1 (seats 1 & 3) 9"


def test_solo_sides_are_seats() -> None:
    # Ulti: three seats, each scoring for itself (UL-2).
    assert [side_name(i, 3, 3) for i in range(3)] == ["seat 0", "seat 1", "seat 2"]


def test_a_shape_no_registered_game_has() -> None:
    # Six seats in three partnerships: seats 0 & 3, 1 & 4, 2 & 5.
    assert side_name(2, 6, 3) == "team 2 (seats 2 & 5)"
    assert side_name(4, 5, 5) == "seat 4"
