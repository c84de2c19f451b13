"""The stages of a render, in the order scenes/render.py runs them: request, system, keys, rendering,
publish (with deck and narration). Code in here draws nothing: editing it never changes a chapter's key."""
