"""The trace's own words in French (shared/language.py's `say`), by their English.

Imported only when French is spoken. tests/test_i18n.py holds the table to the words
shared/ says: each has its French, with the same blanks, and none is left over.
"""

FRENCH = {
    "you> ": "vous> ", "iteration {n}": "itération {n}", "error  ": "erreur  ",
    "think": "réflexion", "act": "action", "observe": "observation",
    "think · before its tool calls": "réflexion · avant ses appels d'outils",
    "think · the text above came before its tool calls · ":
        "réflexion · le texte ci-dessus précédait ses appels d'outils · ",
    "model replied with tool calls · ": "le modèle a répondu par des appels d'outils · ",
    "think · reasoning": "réflexion · raisonnement",
    "the arguments as sent: not readable": "les arguments tels qu'envoyés : illisibles",
    "showing {kept} of {total} characters here": "{kept} caractères sur {total} montrés ici",
    " [cut off]": " [coupé]", "bye ({why})": "au revoir ({why})",
    "an empty line": "une ligne vide", "end of input": "fin de l'entrée",
    "turn: ": "tour : ", "{n} model call": "{n} appel au modèle",
    "{n} model calls": "{n} appels au modèle", "{n} iteration": "{n} itération",
    "{n} iterations": "{n} itérations",
    "{sent} in / {written} out tokens": "{sent} jetons lus / {written} écrits",
    " (estimated)": " (estimés)",
    " (not all reported by the server)": " (pas tous rapportés par le serveur)",
    "tokens not reported by the server": "jetons non rapportés par le serveur",
    "cache read": "lus en cache", "cache write": "écrits en cache",
    "stop {reason}": "arrêt {reason}",
    "… ({n} more lines)": "… ({n} lignes de plus)",
    "… ({n} more characters)": "… ({n} caractères de plus)",
    "trace saved to {path}": "trace enregistrée dans {path}",
    "model: {model} ({why})": "modèle : {model} ({why})",
    "offline, the built-in rule-based model": "hors ligne, le modèle à règles intégré",
    " with the {quirk} quirk": " avec la bizarrerie {quirk}",
    "no API key is set": "aucune clé d'API n'est définie",
    "chosen with --provider": "choisi par --provider",
    "chosen with TAO_PROVIDER": "choisi par TAO_PROVIDER",
    "for a real model set ANTHROPIC_API_KEY or OPENAI_API_KEY, or use --provider ollama":
        "pour un vrai modèle, définissez ANTHROPIC_API_KEY ou OPENAI_API_KEY, ou prenez "
        "--provider ollama",
    "to leave: an empty line, Ctrl-D, or Ctrl-C again":
        "pour partir : une ligne vide, Ctrl-D, ou de nouveau Ctrl-C",
    "cancelled (Ctrl-C)": "annulé (Ctrl-C)", "error: {message}": "erreur : {message}",
    # a stage's --help: the options every stage takes
    "With no key set, the built-in offline model answers.":
        "Sans clé définie, c'est le modèle hors ligne intégré qui répond.",
    "which model answers (default: TAO_PROVIDER, else a key, else offline); replay:FILE "
    "answers from a --record file":
        "quel modèle répond (par défaut : TAO_PROVIDER, sinon une clé, sinon offline) ; "
        "replay:FILE répond depuis un fichier de --record",
    "model name (default: TAO_MODEL, else the provider's)":
        "le nom du modèle (par défaut : TAO_MODEL, sinon celui du fournisseur)",
    "also save what was shown, as SVG or HTML, however the session ends":
        "enregistrer aussi ce qui s'est affiché, en SVG ou en HTML, quelle que soit la fin "
        "de la session",
    "print each request body and the response events as they go over the wire; with the "
    "offline model, as they would go to API (anthropic, the default, or openai)":
        "afficher le corps de chaque requête et les événements de la réponse tels qu'ils "
        "passent sur le fil ; avec le modèle hors ligne, tels qu'ils partiraient vers API "
        "(anthropic, par défaut, ou openai)",
    "write every request and reply to FILE, keys hidden, to replay later with --provider "
    "replay:FILE":
        "écrire chaque requête et chaque réponse dans FILE, clés masquées, pour les rejouer "
        "plus tard avec --provider replay:FILE",
    "make the offline model misbehave like a real one (for watching the loop cope)":
        "faire dérailler le modèle hors ligne comme un vrai (pour voir la boucle s'en sortir)",
    "let the local model write only a well-formed call line for these tools, or plain "
    "text (a grammar built from the registry; needs --provider local)":
        "ne laisser le modèle local écrire qu'une ligne d'appel bien formée vers ces outils, "
        "ou du texte simple (une grammaire tirée du registre ; demande --provider local)",
    "put worked examples in front of the conversation: one exchange per tool, its result "
    "from the tool itself (few-shot; shared/examples.py)":
        "placer des exemples résolus devant la conversation : un échange par outil, son "
        "résultat donné par l'outil lui-même (few-shot ; shared/examples.py)",
    "{n} example messages, sent in front of the conversation on every request (--examples):":
        "{n} messages d'exemple, envoyés devant la conversation à chaque requête (--examples) :",
    "  example · {role}: {text}": "  exemple · {role} : {text}",
    "no example for {tool}: {error}": "pas d'exemple pour {tool} : {error}",
}
