"""Business logic of the registry: one module per entity, functions named `<entity>_<action>`."""
