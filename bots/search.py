"""The strong bot of the card game: determinised flat Monte Carlo over greedy's best moves.

The card game hides the other hands and the deck, so its strong bot searches states
the engine deals from its view (`GameState.from_view`; the dice and tile games hide
nothing but chance, which their strong rankings average exactly: `dice.strong`,
`tiles.strong`). For each of `budget` iterations the bot has a full state dealt
consistently with its view (the other hands and every future draw are the deal's,
never the real game's), plays each candidate move on that same state, lets every seat
continue with the greedy rules to the end of its turn or round the table
(`Search.full_round`), and scores the position reached. All candidates meet the same
deal in an iteration, so luck of the draw cancels out of their comparison. The
candidates are the `WIDTH` best moves in the game's plan (greedy's order): the search
corrects the plan where looking ahead shows better (what a move leaves for the next
players), at a small cost per move.

The budget counts iterations, not seconds, so that a bot's moves depend only on
its seed and the views it is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import sqrt
from statistics import mean, stdev

from genial.engine import Event, GameState, Move, Rng, View, from_view

from .base import Kit, Search, progress

WIDTH = 4
WIN = 20.0
"""What a won (or lost) round adds to (takes from) a playout's score: more than any
lead in counts can be worth."""


class SearchBot:
    def __init__(self, kit: Kit, search: Search, rng: Rng, budget: int) -> None:
        if budget < 2:
            raise ValueError("the search budget is at least two iterations")
        self.kit = kit
        self.search = search
        self.rng = rng
        self.budget = budget

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        candidates = self.search.plan(view, legal_moves)[:WIDTH]
        if len(candidates) == 1:
            return candidates[0]
        seat: int = view["viewer"]
        # Per candidate, its playout score less that of the plan's choice on the same sample.
        diffs: list[list[float]] = [[] for _ in candidates]
        for _ in range(self.budget):
            state = from_view(view, self.rng)
            scores = []
            for move in candidates:
                after, events = state.apply(seat, move)
                scores.append(self.playout(after, events, seat))
            for i, score in enumerate(scores):
                diffs[i].append(score - scores[0])
        best, best_gain = 0, 0.0
        for i, d in enumerate(diffs[1:], 1):
            gain = mean(d)
            # Leave the plan's choice only for a gain clear of the sampling noise: the best
            # of several noisy means is biased upwards, and most of all at chance moves.
            if gain > best_gain and gain > self.search.caution * stdev(d) / sqrt(len(d)):
                best, best_gain = i, gain
        return candidates[best]

    def playout(self, state: GameState, events: list[Event], seat: int) -> float:
        """The score for `seat` after greedy play to the end of its turn, or round the
        table, or to the end of the round if that comes first."""
        turns = 0
        mover = seat
        while True:
            for event in events:
                if event["type"] == "round_over":
                    return self.result(event, seat)
            to_move = state.to_move
            assert to_move is not None  # the round is not over, so somebody moves
            if to_move != mover:
                mover = to_move
                turns += 1
                if turns >= (state.seats if self.search.full_round else 1):
                    return self.evaluate(state, seat)
            move = self.kit.rank(state.view(to_move), state.legal_moves())[0]
            state, events = state.apply(to_move, move)

    def evaluate(self, state: GameState, seat: int) -> float:
        """The seat's progress less that of the best other seat."""
        goal = state.goal()
        values = [progress(rows, goal, self.kit.weakest) for rows in state.counts()]
        return values[seat] - max(v for s, v in enumerate(values) if s != seat)

    @staticmethod
    def result(event: Event, seat: int) -> float:
        """A finished round: won or not, and by how many points (the round's own measure
        of the lowest colour)."""
        points: list[int] = event["points"]
        lead = points[seat] - max(p for s, p in enumerate(points) if s != seat)
        return (WIN if event["ranks"][seat] == 1 else -WIN) + lead
