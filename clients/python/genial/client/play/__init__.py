"""`genial play`: a terminal client for people, on the Python SDK.

Play against the service's bots (`genial play cards --bots 3`), or with people:
`genial play dice --seats 3` shows a game id, and each friend runs
`genial play --join GAME_ID`. A player who quits comes back with `genial play --resume`.
The app needs Textual, which the `play` extra brings (`genial[play]`,
`genial-client[play]`); `command` parses the command line without it.
"""
