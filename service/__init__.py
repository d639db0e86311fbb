"""The game service: the API's use cases, its transports and its stores."""
