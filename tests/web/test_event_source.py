"""A plain EventSource in the browser follows a game with a seat's view, through a watch
ticket: the page's own credential travels in a header once, the stream's URL carries only a
ticket good for a minute and for watching that game."""

from __future__ import annotations

from playwright.sync_api import Page

from genial.v1 import game_service_pb2 as api
from tests.service.clients import RestClient
from tests.service.conftest import Worker
from tests.service.scenarios import open_table
from tests.web.conftest import url

FOLLOW = """
async ([gameId, token]) => {
  const made = await fetch(`/v1/games/${gameId}/watch-tickets`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: "{}",
  }).then((reply) => reply.json());
  return await new Promise((resolve, reject) => {
    const source = new EventSource(
      `/v1/games/${gameId}/events?ticket=${encodeURIComponent(made.ticket)}`,
    );
    source.addEventListener("join", (event) => {
      source.close();
      resolve(JSON.parse(event.data).view);
    });
    source.onerror = () => reject(new Error("the stream failed"));
  });
}
"""


def test_an_event_source_sees_the_seat_through_a_ticket(page: Page, web_worker: Worker) -> None:
    client = RestClient(web_worker.http_port)
    table = open_table(client, "cards", 2)
    page.goto(url(web_worker))
    for seat in range(2):
        view = page.evaluate(FOLLOW, [table.game_id, table.tokens[seat]])
        assert view["viewer"] == seat
        mine = client.call("GetGame", api.GetGameRequest(game_id=table.game_id), table.tokens[seat])
        assert len(view["cards"]["hand"]) == len(mine.view.cards.hand)
    client.close()
