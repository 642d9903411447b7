"""Default model names and addresses: the one place they live.

Retired model names are the commonest reason teaching repos break. When one is
retired, change it here (or set TAO_MODEL / --model) and nothing else.
"""

DEFAULT_MODELS = {
    "anthropic": "claude-haiku-5-5",
    "openai": "gpt-5.4-mini",
    "ollama": "llama3.2",
    "offline": "tao-offline-1",
}

OLLAMA_BASE_URL = "http://localhost:11434/v1"
DEFAULT_MAX_TOKENS = 1024

# Which environment variable holds each provider's key.
KEY_VARS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
