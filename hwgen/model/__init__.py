"""Quantized ONNX models as hwgen programs: ``onnx_import`` reads a model into typed layers
(``layers``), ``reference`` computes them as onnxruntime does, ``program`` writes the hwgen
program that computes them in hardware."""
