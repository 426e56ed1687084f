"""qdrant-local: a LOCAL STAND-IN for the Qdrant server, built on Qdrant Edge (qdrant-edge-py).

It serves the subset of Qdrant's REST API that RAG Immune uses. It is not a Qdrant server.
"""

__version__ = "0.1.0"
