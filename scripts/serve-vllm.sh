#!/usr/bin/env bash
# serve-vllm.sh: start a local OpenAI-compatible vLLM endpoint for t2sbench.
#
#   scripts/serve-vllm.sh Qwen/Qwen2.5-Coder-7B-Instruct [port] [extra vllm args...]
#
# Needs vLLM installed (pip install vllm) and a GPU. The spec then points a
# model at it:
#
#   models:
#     qwen: {backend: openai, base_url: http://127.0.0.1:8000/v1,
#            model: Qwen/Qwen2.5-Coder-7B-Instruct, concurrency: 32}
#
# vLLM honours n > 1 and seed, so self-consistency and MCTS expansion get all
# their samples from one request. --served-model-name must equal the spec's
# `model`; the default served name is the model path.
set -euo pipefail
model=${1:?usage: serve-vllm.sh MODEL [PORT] [ARGS...]}
port=${2:-8000}
shift $(( $# >= 2 ? 2 : 1 ))
command -v vllm >/dev/null 2>&1 || { echo "serve-vllm.sh: vllm not found (pip install vllm)" >&2; exit 1; }
exec vllm serve "$model" --host 127.0.0.1 --port "$port" --served-model-name "$model" \
  --max-model-len "${MAX_MODEL_LEN:-16384}" --seed 0 "$@"
