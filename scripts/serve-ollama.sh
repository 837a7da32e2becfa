#!/usr/bin/env bash
# serve-ollama.sh: start Ollama and pull a model for t2sbench.
#
#   scripts/serve-ollama.sh qwen2.5-coder:7b
#
# The spec then points a model at Ollama's OpenAI-compatible endpoint:
#
#   models:
#     local: {backend: openai, base_url: http://127.0.0.1:11434/v1,
#             model: "qwen2.5-coder:7b", concurrency: 4}
#
# Ollama ignores n > 1: the client then sends further requests until it has
# n samples (runners/llm documents this), so sampling-heavy methods (sc,
# alphasql, iesr) cost n times the requests. Set OLLAMA_NUM_PARALLEL to the
# spec's concurrency.
set -euo pipefail
model=${1:?usage: serve-ollama.sh MODEL}
command -v ollama >/dev/null 2>&1 || { echo "serve-ollama.sh: ollama not found" >&2; exit 1; }
if ! curl -fsS http://127.0.0.1:11434/api/version >/dev/null 2>&1; then
  OLLAMA_NUM_PARALLEL=${OLLAMA_NUM_PARALLEL:-4} ollama serve >"${TMPDIR:-/tmp}/ollama.log" 2>&1 &
  for _ in $(seq 1 50); do
    curl -fsS http://127.0.0.1:11434/api/version >/dev/null 2>&1 && break
    sleep 0.2
  done
fi
ollama pull "$model"
echo "Ollama serves $model at http://127.0.0.1:11434/v1" >&2
