"""Einfach Genial: Das Kartenspiel (the card game).

Cards are the 15 unordered pairs of two different colours, four copies of each
(60 cards). A card is named by its two colours in COLORS order, "red_blue".
The deck and the discard pile are kept as counts per card: each draw picks
uniformly from the deck with the game's generator, so the state holds no deck
order and nothing of the future. In `chance_outcomes` a draw is a card index
(`CARD_NAMES[i]`); the cards that refill a hand are one batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, combinations
from typing import Any, ClassVar, Self

from .common import COLORS, Event, IllegalMove, Move, Reason, View, color, move_fields, rank_by
from .core import GameState
from .rng import Rng

PAIRS: tuple[tuple[int, int], ...] = tuple(combinations(range(len(COLORS)), 2))
"""Card index -> its two colour indices."""
CARD_NAMES: tuple[str, ...] = tuple(f"{COLORS[a]}_{COLORS[b]}" for a, b in PAIRS)
CARD_INDEX: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)} | {
    f"{COLORS[b]}_{COLORS[a]}": i for i, (a, b) in enumerate(PAIRS)
}
COPIES = 4
HAND_SIZE = 6
LAST_COLUMN = 10
GOAL_COLUMN = 7
"""All six markers at this column or higher win the round."""

MOVE_FIELDS: dict[str, tuple[str, ...]] = {
    "play": ("card", "first"),
    "swap": (),
    "decline_swap": (),
}

# Phases of the seat to move.
PLAY, BONUS, SWAP = "play", "bonus", "swap"


def area_cap(lowest_other: int) -> int:
    """The furthest column a marker may reach while the lowest of the player's OTHER five
    markers is at `lowest_other`.

    The German rulebook: "Einen Bereich verlassen darf ein Chip erst, sobald all deine
    übrigen Chips wenigstens den Bereich davor erreicht haben" (areas 0 | 1-3 | 4-6 | 7-10).
    """
    if lowest_other == 0:
        return 3
    if lowest_other <= 3:
        return 6
    return LAST_COLUMN


def ceiling(markers: Sequence[int], c: int) -> int:
    """How far marker `c` may go now: the area rule applied to the player's other markers."""
    return area_cap(min([*markers[:c], *markers[c + 1 :]]))


def symbol_matches(open_cards: Iterable[int]) -> list[int]:
    """Per colour, how many of the given open cards show it: what a symbol of that colour
    scores (a card counts at most once per colour)."""
    matches = [0] * len(COLORS)
    for card in open_cards:
        a, b = PAIRS[card]
        matches[a] += 1
        matches[b] += 1
    return matches


def advance(markers: list[int], matches: Sequence[int], order: Sequence[int]) -> list[int]:
    """Score the colours of `order` one after the other, moving `markers` in place; the
    column each marker started from, in that order.

    The ceiling is looked at again before each colour, so the order can matter. It only
    grows as markers move, so a marker is never past it and never moves back.
    """
    before: list[int] = []
    for c in order:
        before.append(markers[c])
        markers[c] = min(markers[c] + matches[c], ceiling(markers, c))
    return before


class CardGame(GameState):
    kind: ClassVar[str] = "cards"

    markers: list[list[int]]
    """Per seat, the column (0-10) of each colour's marker."""
    hands: list[list[int]]
    """Per seat, the cards in hand (card indices, sorted)."""
    open_cards: list[list[int]]
    """Per seat, the open cards, oldest (nearest the centre) first: 1, or 2 with two seats."""
    deck: list[int]
    discard: list[int]
    """Counts per card."""
    current: int
    phase: str
    bonus_plays: int
    """Bonus plays earned and not yet made this turn."""
    winner: int | None

    # ---- setup --------------------------------------------------------------------

    def _setup_round(self) -> list[Event]:
        n = self.seats
        self.markers = [[0] * len(COLORS) for _ in range(n)]
        self.hands = [[] for _ in range(n)]
        self.open_cards = [[] for _ in range(n)]
        self.deck = [COPIES] * len(PAIRS)
        self.discard = [0] * len(PAIRS)
        self.current = self.first_seat
        self.phase = PLAY
        self.bonus_plays = 0
        self.winner = None
        # The seat before the first player deals, starting at the first player.
        order = [(self.first_seat + i) % n for i in range(n)]
        for seat in order:
            self._draw(seat, HAND_SIZE, [])
        for seat in order:
            for _ in range(2 if n == 2 else 1):
                self.open_cards[seat].append(self._draw_one())
        return [
            {
                "type": "deal",
                "round": self.round,
                "first_seat": self.first_seat,
                "open_cards": [self._names(cards) for cards in self.open_cards],
            }
        ]

    # ---- the deck -----------------------------------------------------------------

    def _draw_one(self) -> int:
        card = self.rng.pick_weighted(self.deck)
        self.deck[card] -= 1
        return card

    def _draw(self, seat: int, count: int, events: list[Event]) -> None:
        drawn = 0
        self.rng.start_batch()  # into one hand, which is kept sorted
        for _ in range(count):
            if not any(self.deck):
                if not any(self.discard):
                    break  # both empty: the hand stays short
                self.deck, self.discard = self.discard, [0] * len(PAIRS)
                events.append({"type": "reshuffle", "deck_size": sum(self.deck)})
                self.rng.start_batch()  # another pool
            self.hands[seat].append(self._draw_one())
            drawn += 1
        self.rng.end_batch()
        self.hands[seat].sort()
        if drawn:
            events.append({"type": "draw", "seat": seat, "count": drawn})

    @staticmethod
    def _names(cards: list[int]) -> list[str]:
        return [CARD_NAMES[c] for c in cards]

    # ---- turn -----------------------------------------------------------------------

    def _to_move(self) -> int:
        return self.current

    def _swap_allowed(self) -> bool:
        hand = self.hands[self.current]
        if not hand:
            return False  # nothing to show: a swap would be the ordinary draw
        markers = self.markers[self.current]
        lowest = min(markers)
        weakest = {c for c, m in enumerate(markers) if m == lowest}
        return not any(weakest & set(PAIRS[card]) for card in hand)

    def _legal_moves(self) -> list[dict[str, Any]]:
        if self.phase == SWAP:
            return [{"type": "swap"}, {"type": "decline_swap"}]
        moves: list[dict[str, Any]] = []
        for card in sorted(set(self.hands[self.current])):
            for first in PAIRS[card]:
                moves.append({"type": "play", "card": CARD_NAMES[card], "first": COLORS[first]})
        return moves

    def _apply(self, move: Move) -> list[Event]:
        kind = move_fields(move, MOVE_FIELDS)
        if kind == "play":
            if self.phase == SWAP:
                raise IllegalMove(Reason.WRONG_PHASE, "decide on the hand swap first")
            return self._play(move)
        if self.phase != SWAP:
            raise IllegalMove(
                Reason.SWAP_NOT_ALLOWED,
                "the hand swap is offered only after the last play of a turn, when no card in "
                "hand shows a colour of the lowest marker",
            )
        events: list[Event] = []
        seat = self.current
        if kind == "swap":
            hand = self.hands[seat]
            events.append({"type": "swap", "seat": seat, "cards": self._names(hand)})
            for card in hand:
                self.discard[card] += 1
            self.hands[seat] = []
        else:
            events.append({"type": "decline_swap", "seat": seat})
        self._end_turn(events)
        return events

    def _play(self, move: Move) -> list[Event]:
        name = move["card"]
        card = CARD_INDEX.get(name) if isinstance(name, str) else None
        if card is None:
            raise IllegalMove(Reason.MALFORMED_MOVE, f"unknown card {name!r}, e.g. 'red_blue'")
        seat = self.current
        if card not in self.hands[seat]:
            raise IllegalMove(Reason.CARD_NOT_IN_HAND, f"no {CARD_NAMES[card]} in hand")
        first = color(move["first"])
        if first not in PAIRS[card]:
            raise IllegalMove(Reason.BAD_COLOR, f"{COLORS[first]} is not on {CARD_NAMES[card]}")
        if self.phase == BONUS:
            self.bonus_plays -= 1
        self.hands[seat].remove(card)
        markers = self.markers[seat]
        order = (first, PAIRS[card][0] + PAIRS[card][1] - first)
        matches = symbol_matches(chain.from_iterable(self.open_cards))
        starts = advance(markers, matches, order)
        scores: list[dict[str, Any]] = []
        gained_bonus = 0
        for c, before in zip(order, starts, strict=True):
            after = markers[c]
            if after == LAST_COLUMN and before < LAST_COLUMN:
                gained_bonus += 1
            scores.append(
                {
                    "color": COLORS[c],
                    "matches": matches[c],
                    "from": before,
                    "to": after,
                    "lost": matches[c] - (after - before),
                }
            )
        # The card from the previous play is discarded and the new card moves up.
        self.discard[self.open_cards[seat].pop(0)] += 1
        self.open_cards[seat].append(card)
        self.bonus_plays += gained_bonus
        events: list[Event] = [
            {
                "type": "play",
                "seat": seat,
                "card": CARD_NAMES[card],
                "first": COLORS[first],
                "scores": scores,
                "bonus_plays": self.bonus_plays,
            }
        ]
        if min(markers) >= GOAL_COLUMN:
            self.winner = seat  # the round ends at once: no bonus play, no drawing
            return events
        if self.bonus_plays and self.hands[seat]:
            self.phase = BONUS
            return events
        if self.bonus_plays:
            events.append({"type": "bonus_lapsed", "seat": seat, "count": self.bonus_plays})
            self.bonus_plays = 0
        if self._swap_allowed():
            self.phase = SWAP
            return events
        self._end_turn(events)
        return events

    def _end_turn(self, events: list[Event]) -> None:
        seat = self.current
        self._draw(seat, HAND_SIZE - len(self.hands[seat]), events)
        self.bonus_plays = 0
        self.phase = PLAY
        self.current = (seat + 1) % self.seats

    # ---- end of a round -------------------------------------------------------------

    def _round_over(self) -> bool:
        return self.winner is not None

    def _round_points(self) -> list[int]:
        return [min(m) for m in self.markers]

    def _round_ranks(self) -> dict[int, int]:
        return rank_by({s: sorted(self.markers[s]) for s in range(self.seats)})

    # ---- views and data -----------------------------------------------------------

    def _table_view(self, seat: int | None) -> View:
        view: View = {
            "phase": "over" if self.finished else self.phase,
            "bonus_plays": self.bonus_plays,
            "deck_size": sum(self.deck),
            "discard_size": sum(self.discard),
            "players": [
                {
                    "seat": s,
                    "markers": list(self.markers[s]),
                    "open_cards": self._names(self.open_cards[s]),
                    "hand_size": len(self.hands[s]),
                }
                for s in range(self.seats)
            ],
        }
        view["hand"] = self._names(self.hands[seat]) if seat is not None else []
        return view

    def _load_view(self, view: View, rng: Rng) -> None:
        """The cards the view does not show (60 less the own hand and every open card)
        are dealt at random into the other hands by their sizes, then the deck by its
        size; the rest is the discard pile. (A player with a perfect memory would know
        more of the discard pile; a view does not.)"""
        table = view["table"]
        players = table["players"]
        seat = view["viewer"]
        self.markers = [list(p["markers"]) for p in players]
        self.open_cards = [[CARD_INDEX[name] for name in p["open_cards"]] for p in players]
        own = sorted(CARD_INDEX[name] for name in table["hand"])
        unknown = [COPIES] * len(PAIRS)
        for card in own + [c for cards in self.open_cards for c in cards]:
            unknown[card] -= 1

        def deal(count: int) -> list[int]:
            cards = [rng.pick_weighted(unknown) for _ in range(count)]
            for card in cards:
                unknown[card] -= 1
            return cards

        self.hands = [own if p["seat"] == seat else sorted(deal(p["hand_size"])) for p in players]
        self.deck = [0] * len(PAIRS)
        for card in deal(table["deck_size"]):
            self.deck[card] += 1
        self.discard = unknown
        self.current = view["to_move"] if view["to_move"] is not None else self.first_seat
        self.phase = PLAY if table["phase"] == "over" else table["phase"]
        self.bonus_plays = table["bonus_plays"]
        self.winner = None

    def counts(self) -> list[list[int]]:
        return self.markers

    def goal(self) -> int:
        return GOAL_COLUMN

    def _round_data(self) -> dict[str, Any]:
        return {
            "markers": self.markers,
            "hands": self.hands,
            "open_cards": self.open_cards,
            "deck": self.deck,
            "discard": self.discard,
            "to_move": self.current,
            "phase": self.phase,
            "bonus_plays": self.bonus_plays,
            "winner": self.winner,
        }

    def _load_round(self, data: Mapping[str, Any]) -> None:
        self.markers = [list(m) for m in data["markers"]]
        self.hands = [list(h) for h in data["hands"]]
        self.open_cards = [list(o) for o in data["open_cards"]]
        self.deck = list(data["deck"])
        self.discard = list(data["discard"])
        self.current = data["to_move"]
        self.phase = data["phase"]
        self.bonus_plays = data["bonus_plays"]
        self.winner = data["winner"]

    def _copy_round(self, other: Self) -> None:
        self.markers = [list(m) for m in other.markers]
        self.hands = [list(h) for h in other.hands]
        self.open_cards = [list(o) for o in other.open_cards]
        self.deck = list(other.deck)
        self.discard = list(other.discard)
        self.current = other.current
        self.phase = other.phase
        self.bonus_plays = other.bonus_plays
        self.winner = other.winner
