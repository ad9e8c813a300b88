"""Meaning vectors for memories: a local ONNX model, provisioned from Maven Central like Neo4j."""
