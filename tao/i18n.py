"""tao's own words in English and French: one table, one lookup.

`text(id, **parts)` is message `id` in the language tao speaks, `language()` (one choice
for the stages and tao, in shared/language.py): TAO_LANG (`en` or `fr`) if set, else the
locale (the first of LC_ALL, LC_MESSAGES, LANG that is set: one starting with `fr` is
French), else English; anything else is English too. A
message with no French text falls back to its English one (tests/test_i18n.py fails
while one is missing, so the table stays complete). Commands, file names and code
identifiers stay English in both languages: they are what the learner types.

Only the `tao` command speaks through this table. A stage's trace has its own few words
(shared/language.py); what a stage prints itself stays English, since a learner diffs
them, and the offline model answers in the language it is asked in
(shared/providers/offline/writing.py).
"""

from __future__ import annotations

from shared.language import LANGUAGES, language

__all__ = ["LANGUAGES", "MESSAGES", "language", "text"]

MESSAGES = {
    # tao tour
    "tour.stage": {"en": "stage {number}: {title}", "fr": "étape {number} : {title}"},
    "tour.exited": {"en": "stage {number} ({title}) exited with {code}",
                    "fr": "l'étape {number} ({title}) s'est arrêtée avec le code {code}"},
    "tour.done": {
        "en": "tour done: {ok} of {total} stages ran cleanly. Next: open "
              "stages/01_single_call/main.py, or see what a stage changed with `tao diff 02`.",
        "fr": "visite terminée : {ok} étapes sur {total} se sont déroulées sans erreur. "
              "Ensuite : ouvrez stages/01_single_call/main.py, ou regardez ce qu'une étape a "
              "changé avec `tao diff 02`."},
    # tao list
    "list.title": {"en": "tao stages", "fr": "les étapes de tao"},
    "list.columns": {"en": "#|stage|what it teaches", "fr": "#|étape|ce qu'elle enseigne"},
    "list.run": {"en": "run one: tao run NN · see what changed: tao diff NN",
                 "fr": "en lancer une : tao run NN · voir ce qui a changé : tao diff NN"},
    "list.check": {"en": "check the current one: tao check · one by number: tao check N · "
                         "every one: tao check --all",
                   "fr": "vérifier l'exercice en cours : tao check · un exercice par son "
                         "numéro : tao check N · tous : tao check --all"},
    # the exercises: progress, rows, status names
    "progress": {"en": "Progress: [", "fr": "Progression : ["},
    "row.stage": {"en": "  stage {stage} · {status}", "fr": "  étape {stage} · {status}"},
    "table.columns": {"en": "file|stage|status|what you build",
                      "fr": "fichier|étape|état|ce que vous construisez"},
    "status.done": {"en": "done", "fr": "réussi"},
    "status.failing": {"en": "failing", "fr": "en échec"},
    "status.timeout": {"en": "timeout", "fr": "trop long"},
    "status.not attempted": {"en": "not attempted", "fr": "pas commencé"},
    "status.edited": {"en": "edited", "fr": "modifié"},
    "status.missing": {"en": "missing", "fr": "manquant"},
    # tao check
    "check.checking": {"en": "checking {what}…", "fr": "vérification de {what}…"},
    "check.every": {"en": "every exercise", "fr": "tous les exercices"},
    "check.passed": {"en": "✓ Exercise {number} ({title}) is done!",
                     "fr": "✓ L'exercice {number} ({title}) est réussi !"},
    "focus.all_done": {
        "en": "All exercises done! `tao solution N` shows the reference answers to compare "
              "with yours.",
        "fr": "Tous les exercices sont réussis ! `tao solution N` montre les solutions de "
              "référence, à comparer avec les vôtres."},
    "focus.head": {"en": "Exercise {number} ({title}, stage {stage})",
                   "fr": "Exercice {number} ({title}, étape {stage})"},
    "focus.done": {"en": "{head} is done.", "fr": "{head} : réussi."},
    "focus.next": {"en": "Next: {head}. Open {file}, read its docstring, and replace the "
                         "NotImplementedError.",
                   "fr": "Suivant : {head}. Ouvrez {file}, lisez sa docstring (en anglais) et "
                         "remplacez le NotImplementedError."},
    "focus.task": {"en": "The task: {task}", "fr": "Ce que demande l'exercice : {task}"},
    "focus.edited": {"en": "{head} changed since its last check: `tao check` runs it.",
                     "fr": "{head} a changé depuis sa dernière vérification : `tao check` la "
                           "relance."},
    "focus.failing": {"en": "{head} is not passing yet.{test}",
                      "fr": "{head} ne passe pas encore.{test}"},
    "focus.says": {"en": " `{test}` says:", "fr": " `{test}` dit :"},
    "focus.edit": {"en": "Edit {file}.", "fr": "Modifiez {file}."},
    "focus.stuck": {"en": "Stuck? `tao hint`. Re-check with `tao check`, or let `tao watch` "
                          "re-check on every save.",
                    "fr": "Bloqué ? `tao hint`. Vérifiez de nouveau avec `tao check`, ou "
                          "laissez `tao watch` vérifier à chaque enregistrement."},
    # tao watch (its keys stay the same letters in both languages)
    "watch.keys": {"en": "watching {file} · h hint · l list · n next exercise · r reset · q quit",
                   "fr": "surveillance de {file} · h indice · l liste · n exercice suivant · "
                         "r réinitialiser · q quitter"},
    "watch.list_keys": {
        "en": "↑/↓ or j/k move · Enter picks · or type a number, then Enter · l closes the list",
        "fr": "↑/↓ ou j/k pour se déplacer · Entrée pour choisir · ou tapez un numéro, puis "
              "Entrée · l ferme la liste"},
    "watch.picking": {"en": " · picking {number}…", "fr": " · choix du {number}…"},
    "watch.hint": {"en": "Hint for exercise {number}:", "fr": "Indice pour l'exercice {number} :"},
    "watch.next": {"en": "Press n for the next exercise.",
                   "fr": "Appuyez sur n pour l'exercice suivant."},
    "watch.no_such": {"en": "no exercise {number}: choose 1 to {total}",
                      "fr": "pas d'exercice {number} : choisissez de 1 à {total}"},
    "watch.all_done": {"en": "every exercise is done: nothing to reset",
                       "fr": "tous les exercices sont réussis : rien à réinitialiser"},
    "watch.is_stub": {"en": "{file} is already the original stub",
                      "fr": "{file} est déjà le squelette d'origine"},
    "watch.reset_ask": {
        "en": "Reset {file} to its stub? Your changes will be lost. Press y to reset, any "
              "other key to keep them.",
        "fr": "Remettre {file} dans son état d'origine ? Vos modifications seront perdues. "
              "Appuyez sur y pour réinitialiser, sur toute autre touche pour les garder."},
    "watch.kept": {"en": "{file} is left as it is", "fr": "{file} reste tel quel"},
    "watch.reset": {"en": "{file} is the stub again",
                    "fr": "{file} est de nouveau le squelette d'origine"},
    # tao diff
    "diff.identical": {"en": "{old} and {new} are identical",
                       "fr": "{old} et {new} sont identiques"},
    "diff.too_narrow": {"en": "(--side needs a terminal at least {need} columns wide; this one "
                              "has {width}: showing a unified diff)",
                        "fr": "(--side demande un terminal d'au moins {need} colonnes ; celui-ci "
                              "en a {width} : voici un diff unifié)"},
    "diff.not_text": {"en": "(not text: skipped)", "fr": "(pas du texte : laissé de côté)"},
    "diff.prose": {"en": "(prose: shown with --docs)", "fr": "(texte : affiché avec --docs)"},
    "diff.code_lines": {"en": "code: {total} changed lines (+{added} -{removed}), blank lines "
                              "not counted",
                        "fr": "code : {total} lignes modifiées (+{added} -{removed}), lignes vides "
                              "non comptées"},
    # tao compare on the terminal (--markdown, --quirk all and --html stay English)
    "compare.title": {
        "en": "tao compare · {provider} · {tasks} tasks × {runs}",
        "fr": "tao compare · {provider} · {tasks} tâches × {runs}"},
    "compare.comparing": {
        "en": "comparing",
        "fr": "comparaison"},
    "compare.well_formed": {
        "en": "well-formed calls",
        "fr": "appels bien formés"},
    "compare.right_tool": {
        "en": "right tool",
        "fr": "bon outil"},
    "compare.right_args": {
        "en": "right arguments",
        "fr": "bons arguments"},
    "compare.answer_ok": {
        "en": "correct answer",
        "fr": "réponse juste"},
    "compare.unneeded": {
        "en": "calls not needed",
        "fr": "appels inutiles"},
    "compare.missed": {
        "en": "calls missed",
        "fr": "appels manqués"},
    "compare.iterations": {
        "en": "iterations",
        "fr": "itérations"},
    "compare.tokens": {
        "en": "tokens in / out",
        "fr": "tokens entrée / sortie"},
    "compare.wall_time": {
        "en": "wall time",
        "fr": "durée réelle"},
    "compare.seconds": {
        "en": "{seconds} s",
        "fr": "{seconds} s"},
    "compare.unreported": {
        "en": "not reported by the server",
        "fr": "non fournis par le serveur"},
    "compare.not_counted": {
        "en": " ({runs} runs not counted)",
        "fr": " ({runs} exécutions non comptées)"},
    "compare.estimated": {
        "en": " (estimated)",
        "fr": " (estimation)"},
    "compare.error_row": {
        "en": "error: {kind}",
        "fr": "erreur : {kind}"},
    "compare.by_kind": {
        "en": "right answers, by kind of task",
        "fr": "réponses justes, par type de tâche"},
    "compare.kind": {
        "en": "kind",
        "fr": "type"},
    "compare.report": {
        "en": "report: {file} (opens from file://, nothing fetched)",
        "fr": "rapport : {file} (s'ouvre depuis file://, rien n'est téléchargé)"},
    "compare.fix.near_miss": {
        "en": "near-miss coaching (stage 06) tells the model what was wrong; native calls "
              "(stage 07) have no format to get wrong",
        "fr": "le coaching des quasi-réussites (étape 06) dit au modèle ce qui n'allait pas ; "
              "les appels natifs (étape 07) n'ont pas de format à rater"},
    "compare.fix.call_as_answer": {
        "en": "a call the parser missed became the answer: native calls (stage 07), or "
              "constrained decoding so only the JSON line can be written",
        "fr": "un appel que l'analyseur a manqué est devenu la réponse : appels natifs (étape "
              "07), ou décodage contraint pour que seule la ligne JSON puisse s'écrire"},
    "compare.fix.broken_args": {
        "en": "constrained decoding (a grammar) keeps arguments valid JSON; the loop feeds the "
              "error back so the model can retry (stage 07)",
        "fr": "le décodage contraint (une grammaire) garde des arguments en JSON valide ; la "
              "boucle renvoie l'erreur pour que le modèle réessaie (étape 07)"},
    "compare.fix.unknown_tool": {
        "en": "the registry's error names the real tools (stage 06); native calls send the "
              "tool list as schema, not prose",
        "fr": "l'erreur du registre nomme les vrais outils (étape 06) ; les appels natifs "
              "envoient la liste des outils en schéma, pas en prose"},
    "compare.fix.missing_arg": {
        "en": "the schema's `required` list (stage 07) and an error the model reads",
        "fr": "la liste `required` du schéma (étape 07) et une erreur que le modèle lit"},
    "compare.fix.tool_error": {
        "en": "errors as observations (stage 05): the model reads what went wrong",
        "fr": "les erreurs comme observations (étape 05) : le modèle lit ce qui s'est mal passé"},
    "compare.fix.missed_call": {
        "en": "native calls with tool_choice=\"required\" (exercise 10), or clearer tool "
              "descriptions in the registry (stage 06)",
        "fr": "les appels natifs avec tool_choice=\"required\" (exercice 10), ou des "
              "descriptions d'outils plus claires dans le registre (étape 06)"},
    "compare.fix.unneeded_call": {
        "en": "tool_choice=\"none\" for a turn that needs no tool (exercise 10; stage 09 "
              "sends it for its summary)",
        "fr": "tool_choice=\"none\" pour un tour qui n'a besoin d'aucun outil (exercice 10 ; "
              "l'étape 09 l'envoie pour son résumé)"},
    "compare.fix.iteration_cap": {
        "en": "a budget: MAX_ITERATIONS, and an honest summary at the cap (stage 09)",
        "fr": "un budget : MAX_ITERATIONS, et un résumé honnête à la limite (étape 09)"},
    "compare.fix.cut_off": {
        "en": "a budget for the reply: max_tokens, and stop reasons as data (stage 09)",
        "fr": "un budget pour la réponse : max_tokens, et les raisons d'arrêt comme données "
              "(étape 09)"},
    "compare.fix.provider": {
        "en": "the provider's error, as one line: see `tao doctor`",
        "fr": "l'erreur du fournisseur, en une ligne : voir `tao doctor`"},
    # tao doctor: a mark, what was checked, and " → " the fix
    "doctor.ok": {"en": "ok", "fr": "ok"},
    "doctor.fix": {"en": "fix", "fr": "à faire"},
    "doctor.provider": {"en": "provider: {name} ({why})", "fr": "fournisseur : {name} ({why})"},
    "doctor.key_set": {"en": "{var}: set (value hidden)", "fr": "{var} : définie (valeur cachée)"},
    "doctor.key_unset": {"en": "{var}: not set", "fr": "{var} : non définie"},
    "doctor.key_fix": {"en": "export {var}=<your key>", "fr": "export {var}=<votre clé>"},
    "doctor.offline": {"en": "model: {model}: built in, needs no server or key",
                       "fr": "modèle : {model} : intégré, sans serveur ni clé"},
    "doctor.local_ok": {"en": "local model: {file} ({size} MiB, {path}), run by {bindings} in "
                              "this process",
                        "fr": "modèle local : {file} ({size} Mio, {path}), exécuté par "
                              "{bindings} dans ce processus"},
    "doctor.local_absent": {"en": "local model (--provider local): not installed; `{install}` "
                                  "adds llama.cpp and SmolLM2-135M (94 MiB)",
                            "fr": "modèle local (--provider local) : non installé ; "
                                  "`{install}` ajoute llama.cpp et SmolLM2-135M (94 Mio)"},
    "doctor.replay": {"en": "model: {model}", "fr": "modèle : {model}"},
    "doctor.no_bindings": {"en": "llama-cpp-python is not installed",
                           "fr": "llama-cpp-python n'est pas installé"},
    "doctor.local_problem": {"en": "local model: {problem}", "fr": "modèle local : {problem}"},
    "doctor.install_fix": {"en": "run `{install}`", "fr": "lancez `{install}`"},
    "doctor.model_file_fix": {"en": "point TAO_LOCAL_MODEL (or --model) at a .gguf file, or "
                                    "unset it",
                              "fr": "faites pointer TAO_LOCAL_MODEL (ou --model) vers un "
                                    "fichier .gguf, ou retirez-la"},
    "doctor.no_answer": {"en": "server: {where} did not answer as expected",
                         "fr": "serveur : {where} n'a pas répondu comme prévu"},
    "doctor.answers": {"en": "server: {where} answers", "fr": "serveur : {where} répond"},
    "doctor.model_exists": {"en": "model: {model} exists", "fr": "modèle : {model} existe"},
    "doctor.model_missing": {"en": "model: {model} was not found",
                             "fr": "modèle : {model} introuvable"},
    "doctor.model_fix": {"en": "set TAO_MODEL (or --model) to a model your account has",
                         "fr": "donnez à TAO_MODEL (ou --model) un modèle auquel votre compte "
                               "a accès"},
    # tao hint
    "hint.head": {"en": "Hint for exercise {number}: {title} (stage {stage})",
                  "fr": "Indice pour l'exercice {number} : {title} (étape {stage})"},
    # the command itself
    "interrupted": {"en": "interrupted", "fr": "interrompu"},
    "error.line": {"en": "tao {verb}: {error}", "fr": "tao {verb} : {error}"},
    # the one-line errors (CLIError), named by where they are raised
    "error.no_stage": {"en": "no stage {ref}: the stages are {known} (see `tao list`)",
                       "fr": "pas d'étape {ref} : les étapes sont {known} (voir `tao list`)"},
    "error.no_stages_yet": {"en": "none yet", "fr": "aucune pour l'instant"},
    "error.first_stage": {"en": "stage {number} is the first: nothing comes before it",
                          "fr": "l'étape {number} est la première : rien ne la précède"},
    "error.unknown_provider": {"en": "unknown provider {provider}: choose one of {choices}",
                               "fr": "fournisseur inconnu {provider} : choisissez parmi "
                                     "{choices}"},
    "error.no_exercise": {"en": "no exercise {ref}: choose 1 to {total} (see `tao list`)",
                          "fr": "pas d'exercice {ref} : choisissez de 1 à {total} (voir "
                                "`tao list`)"},
    "error.all_done": {"en": "every exercise is done: name one, e.g. `tao {verb} 3`",
                       "fr": "tous les exercices sont réussis : nommez-en un, par exemple "
                             "`tao {verb} 3`"},
    "error.check_both": {"en": "check one exercise (`tao check N`) or all (`tao check --all`), "
                               "not both",
                         "fr": "vérifiez un exercice (`tao check N`) ou tous (`tao check "
                               "--all`), pas les deux"},
    "progress.not_saved": {"en": "could not save progress to {file} ({why}): it is shown, "
                                 "not remembered",
                           "fr": "impossible d'enregistrer la progression dans {file} "
                                 "({why}) : elle est affichée, pas retenue"},
    "error.no_original": {"en": "the original of {file} is missing from exercises/.stubs/: "
                                "restore it from the repository you cloned",
                          "fr": "l'original de {file} manque dans exercises/.stubs/ : "
                                "récupérez-le depuis le dépôt que vous avez cloné"},
    "error.reset_needs_yes": {"en": "resetting {file} throws your work away: add --yes to "
                                    "confirm",
                              "fr": "réinitialiser {file} efface votre travail : ajoutez "
                                    "--yes pour confirmer"},
    "error.not_passing": {"en": "exercise {number} does not pass yet: try it first (`tao "
                                "check`, `tao hint {number}`); the solution opens once it "
                                "passes",
                          "fr": "l'exercice {number} ne passe pas encore : essayez d'abord "
                                "(`tao check`, `tao hint {number}`) ; la solution s'ouvre "
                                "une fois qu'il passe"},
    "error.tests_did_not_run": {"en": "the exercise tests did not run{why}: `uv run pytest "
                                      "tests/exercises -x` shows why",
                                "fr": "les tests des exercices ne se sont pas lancés{why} : "
                                      "`uv run pytest tests/exercises -x` montre pourquoi"},
    "error.book_no_stages": {"en": "no stages under {folder}: is this the tao repository?",
                             "fr": "pas d'étapes dans {folder} : est-ce bien le dépôt tao ?"},
    "error.book_out_file": {"en": "--out {out}: a file is there, not a folder",
                            "fr": "--out {out} : c'est un fichier, pas un dossier"},
    "error.book_out_not_empty": {"en": "--out {out}: the folder is not empty and not a book "
                                       "tao built; choose an empty or new folder",
                                 "fr": "--out {out} : le dossier n'est pas vide et ne contient "
                                       "pas un livre construit par tao ; choisissez un dossier "
                                       "vide ou nouveau"},
    "error.book_out_link": {"en": "--out {out} is a symbolic link: name a folder",
                            "fr": "--out {out} est un lien symbolique : nommez un dossier"},
    "error.book_out_under_file": {"en": "--out {out}: {file} is a file, not a folder",
                                  "fr": "--out {out} : {file} est un fichier, pas un dossier"},
    "error.book_out_unwritable": {"en": "--out {out}: cannot write there ({why})",
                                  "fr": "--out {out} : impossible d'y écrire ({why})"},
    "error.book_missing": {"en": "{name} is missing: `uv sync` installs it (rich needs it "
                                 "too)",
                           "fr": "{name} manque : `uv sync` l'installe (rich en a besoin "
                                 "aussi)"},
    "error.tasks_unreadable": {"en": "--tasks {path}: cannot read it ({why})",
                               "fr": "--tasks {path} : impossible de le lire ({why})"},
    "error.tasks_shape": {"en": "--tasks {path}: each [[task]] needs id, kind and prompt, "
                                "and only tools, args, answer besides ({why})",
                          "fr": "--tasks {path} : chaque [[task]] demande id, kind et prompt, "
                                "et seulement tools, args, answer en plus ({why})"},
    "error.no_protocol": {"en": "no protocol {protocol}: choose from {choices}",
                          "fr": "pas de protocole {protocol} : choisissez parmi {choices}"},
    "error.quirk_all": {"en": "--quirk all runs the offline model: leave out --provider",
                        "fr": "--quirk all lance le modèle hors ligne : retirez --provider"},
    "error.no_protocols": {"en": "--protocols names no protocol: choose from {choices}",
                           "fr": "--protocols ne nomme aucun protocole : choisissez parmi "
                                 "{choices}"},
    "error.none_left": {"en": "no protocol left to run",
                        "fr": "plus aucun protocole à lancer"},
    "error.divergence": {"en": "{why} (was the recording made with the same tasks, protocols "
                               "and --runs?)",
                         "fr": "{why} (l'enregistrement a-t-il été fait avec les mêmes tâches, "
                               "protocoles et --runs ?)"},
    "error.replay_folder": {"en": "{path} is a folder: name a recording (a --record FILE)",
                            "fr": "{path} est un dossier : nommez un enregistrement (un "
                                  "--record FILE)"},
    "error.replay_missing": {"en": "{path}: no such file",
                             "fr": "{path} : ce fichier n'existe pas"},
    "error.replay_unreadable": {"en": "{path}: cannot read it ({why})",
                                "fr": "{path} : impossible de le lire ({why})"},
    "error.replay_not_json": {"en": "{path} is not valid JSON ({why})",
                              "fr": "{path} n'est pas du JSON valide ({why})"},
    "error.replay_not_recording": {"en": "{path} is not a recording: --record writes a JSON "
                                         "list of {{\"request\": ..., \"text\": ...}} entries",
                                   "fr": "{path} n'est pas un enregistrement : --record écrit "
                                         "une liste JSON d'entrées {{\"request\": ..., "
                                         "\"text\": ...}}"},
    # tao audit
    "error.audit_unreadable": {"en": "{path}: cannot read it ({why})",
                               "fr": "{path} : impossible de le lire ({why})"},
    "error.audit_not_file": {"en": "{path} is not a plain file: an audit log is one",
                             "fr": "{path} n'est pas un fichier ordinaire : un journal "
                                   "d'audit en est un"},
    "audit.symlink": {"en": "it is a symlink: give the file it points to, if you trust it",
                      "fr": "c'est un lien symbolique : donnez le fichier vers lequel il "
                            "pointe, si vous lui faites confiance"},
    "audit.columns": {"en": "line|turn|call|risk · mode|decision · by|what it did",
                      "fr": "ligne|tour|appel|risque · mode|décision · par|ce qu'il a fait"},
    "audit.not_json": {"en": "not a JSON object: cut off, or not a line of a log",
                       "fr": "pas un objet JSON : coupée, ou pas une ligne de journal"},
    "audit.empty": {"en": "the log is empty", "fr": "le journal est vide"},
    "audit.more": {"en": "… and {n} more lines (tao audit FILE --verify reads them all)",
                   "fr": "… et {n} lignes de plus (tao audit FICHIER --verify les lit "
                         "toutes)"},
    "audit.break_not_json": {"en": "line {n}: not a JSON object (cut off, or not a line of "
                                   "the log)",
                             "fr": "ligne {n} : pas un objet JSON (coupée, ou pas une ligne "
                                   "du journal)"},
    "audit.break_chain": {"en": "line {n}: its prev is not the hash of the line before it: a "
                                "line before it was removed, edited or added",
                          "fr": "ligne {n} : son prev n'est pas l'empreinte de la ligne "
                                "d'avant : une ligne avant elle a été retirée, modifiée ou "
                                "ajoutée"},
    "audit.broken": {"en": "the chain is broken: {n} of {total} lines do not hold",
                     "fr": "la chaîne est rompue : {n} lignes sur {total} ne tiennent pas"},
    "audit.holds": {"en": "the chain holds: {total} lines, each bound to the one before",
                    "fr": "la chaîne tient : {total} lignes, chacune liée à la précédente"},
    "audit.last": {"en": "the last line, covered by no later one, hashes to {hash}: compare "
                         "it with a copy kept elsewhere",
                   "fr": "la dernière ligne, qu'aucune autre ne couvre, a pour empreinte "
                         "{hash} : comparez-la avec une copie gardée ailleurs"},
    # tao drill
    "error.drill_timeout": {"en": "the attack {attack} ran past {seconds} s: the drill stops",
                            "fr": "l'attaque {attack} a dépassé {seconds} s : l'exercice "
                                  "d'attaque s'arrête"},
    "error.drill_replay": {"en": "{path} is not a folder of drill recordings (made with "
                                 "tao drill --record DIR)",
                           "fr": "{path} n'est pas un dossier d'enregistrements d'attaques "
                                 "(faits avec tao drill --record DOSSIER)"},
    "error.drill_record": {"en": "--record {path}: cannot write there ({why})",
                           "fr": "--record {path} : impossible d'y écrire ({why})"},
    "error.drill_not_ours": {"en": "{path} is there and is no recording: tao drill leaves it "
                                   "alone (choose another --record folder)",
                             "fr": "{path} existe et n'est pas un enregistrement : tao drill n'y "
                                   "touche pas (choisissez un autre dossier --record)"},
    "drill.running": {"en": "attack {n} of {total}: {attack}…",
                      "fr": "attaque {n} sur {total} : {attack}…"},
    "drill.title": {"en": "tao drill · mode {mode} · {provider} · wall: {wall}",
                    "fr": "tao drill · mode {mode} · {provider} · mur : {wall}"},
    "drill.no_wall": {"en": "none here (no run offered)",
                      "fr": "aucun ici (pas de run proposé)"},
    "drill.columns": {"en": "attack|planted in|what the model called|stopped by",
                      "fr": "attaque|cachée dans|ce que le modèle a appelé|arrêtée par"},
    "drill.no_call": {"en": "(no call to the planted target)",
                      "fr": "(aucun appel vers la cible cachée)"},
    "drill.approval": {"en": "approval", "fr": "l'approbation"},
    "drill.path_check": {"en": "the path check", "fr": "la vérification des chemins"},
    "drill.wall": {"en": "the wall", "fr": "le mur"},
    "drill.not_stopped": {"en": "NOT STOPPED", "fr": "PAS ARRÊTÉE"},
    "drill.not_tried": {"en": "not tried: the model ignored it",
                        "fr": "pas tentée : le modèle l'a ignorée"},
    "drill.exited": {"en": "the stage exited {code}",
                     "fr": "l'étape s'est arrêtée avec le code {code}"},
    "drill.canaries_nowhere": {"en": "canaries: seen nowhere (trace, recording with every "
                                     "request and tool output, audit log)",
                               "fr": "canaris : vus nulle part (trace, enregistrement avec "
                                     "chaque requête et chaque sortie d'outil, journal "
                                     "d'audit)"},
    "drill.canaries_seen": {"en": "canaries SEEN in: {places}",
                            "fr": "canaris VUS dans : {places}"},
    "error.replay_empty": {"en": "{path} holds no model call: nothing to replay",
                           "fr": "{path} ne contient aucun appel au modèle : rien à rejouer"},
    "error.cannot_write": {"en": "cannot write {file} ({why})",
                           "fr": "impossible d'écrire {file} ({why})"},
    "error.replay_no_file": {"en": "name a recording: --provider replay:FILE",
                             "fr": "nommez un enregistrement : --provider replay:FILE"},
    "error.replay_too_deep": {"en": "{path} is nested more than 100 levels deep: not a "
                                    "recording",
                              "fr": "{path} est imbriqué sur plus de 100 niveaux : ce n'est "
                                    "pas un enregistrement"},
    "error.replay_entry": {"en": "{path}: {why}", "fr": "{path} : {why}"},
    "error.replay_session": {"en": "{path}: its session {why}",
                             "fr": "{path} : sa session ne va pas ({why})"},
    "error.replay_option": {"en": "{path} holds the option {why}, which a replay never passes "
                                  "again",
                            "fr": "{path} contient l'option {why}, qu'un rejeu ne transmet "
                                  "jamais"},
    "error.replay_no_stage": {"en": "{path} does not say which stage made it (recorded before "
                                    "recordings kept that): name it with --stage N",
                              "fr": "{path} ne dit pas quelle étape l'a produit (enregistré "
                                    "avant que les enregistrements le gardent) : nommez-la "
                                    "avec --stage N"},
    # the notices a verb prints on the way (stderr)
    "compare.left_out": {"en": "tao compare: {protocols} left out: {why}",
                         "fr": "tao compare : {protocols} mis de côté : {why}"},
    "replay.not_typed": {"en": "tao replay: {file} does not hold what was typed (it was "
                               "recorded before recordings kept that): type the same lines "
                               "again",
                         "fr": "tao replay : {file} ne contient pas ce qui a été tapé "
                               "(enregistré avant que les enregistrements le gardent) : "
                               "tapez de nouveau les mêmes lignes"},
    # tao reset, tao solution, tao book
    "reset.ask": {"en": "Restore {file} to its stub? Your changes will be lost [y/N] ",
                  "fr": "Remettre {file} dans son état d'origine ? Vos modifications seront "
                        "perdues [y/N] "},
    "reset.kept": {"en": "left as it is", "fr": "laissé tel quel"},
    "solution.checking": {"en": "checking exercise {number} first…",
                          "fr": "vérification préalable de l'exercice {number}…"},
    "solution.head": {"en": "Reference solution for exercise {number}, {title} ({file}):",
                      "fr": "Solution de référence de l'exercice {number}, {title} ({file}) :"},
    "book_verb.done": {"en": "book: {pages} pages in {out} · open {start}",
                  "fr": "livre : {pages} pages dans {out} · ouvrez {start}"},
    # tao book: the site's own labels and notices ({...} filled in by the book)
    "book.book": {"en": "tao, the book",
                  "fr": "tao, le livre"},
    "book.stages": {"en": "Stages",
                    "fr": "Étapes"},
    "book.exercises": {"en": "Exercises",
                       "fr": "Exercices"},
    "book.compare": {"en": "Text or native?",
                     "fr": "Texte ou natif ?"},
    "book.previous": {"en": "← previous: {stage}",
                      "fr": "← précédente : {stage}"},
    "book.next": {"en": "next: {stage} →",
                  "fr": "suivante : {stage} →"},
    "book.code": {"en": "The code",
                  "fr": "Le code"},
    "book.changed": {"en": "What changed since {prev}",
                     "fr": "Ce qui a changé depuis {prev}"},
    "book.changed_files": {"en": "changed files",
                           "fr": "fichiers modifiés"},
    "book.code_lines": {"en": "code: {total} changed lines (+{added} −{removed}), blank lines "
                              "not counted",
                        "fr": "code : {total} lignes modifiées (+{added} −{removed}), lignes vides "
                              "non comptées"},
    "book.readme_diff": {"en": "the README's changes",
                         "fr": "les changements du README"},
    "book.first": {"en": "The first stage: nothing comes before it.",
                   "fr": "La première étape : rien ne la précède."},
    "book.not_text": {"en": "{file}: not text, not shown",
                      "fr": "{file} : pas du texte, non affiché"},
    "book.identical": {"en": "No file changed.",
                       "fr": "Aucun fichier n'a changé."},
    "book.transcript": {"en": "What you should see",
                        "fr": "Ce que vous devriez voir"},
    "book.transcript_note": {"en": "The tour's demo, replayed on a recorded script ({file}): "
                                   "what the terminal shows.",
                             "fr": "La démo du tour, rejouée sur un script enregistré ({file}) "
                                   ": ce qu'affiche le terminal."},
    "book.no_transcript": {"en": "No golden transcript for this stage yet.",
                           "fr": "Pas encore de transcription de référence pour cette étape."},
    "book.untranslated": {"en": "This page is not translated yet: here is the English text.",
                          "fr": "Cette page n'est pas encore traduite : voici le texte anglais."},
    "book.stage": {"en": "stage {n}",
                   "fr": "étape {n}"},
    "book.hint": {"en": "Hint {n}",
                  "fr": "Indice {n}"},
    "book.more_hint": {"en": "Hint {n}: one more rung",
                       "fr": "Indice {n} : un cran de plus"},
    "book.stub": {"en": "The stub",
                  "fr": "L'exercice à compléter"},
    "book.solution": {"en": "The solution (open it once yours passes)",
                      "fr": "La solution (à ouvrir une fois la vôtre réussie)"},
    "book.map": {"en": "The stage map",
                 "fr": "Le plan des étapes"},
    "book.run": {"en": "How to run the kit",
                 "fr": "Lancer le kit"},
    "book.measured": {"en": "Measured on the offline model, now",
                      "fr": "Mesuré sur le modèle hors ligne, maintenant"},
    "book.recorded": {"en": "Replayed from a recording of a real small model (SmolLM2-135M, "
                            "tests/recordings)",
                      "fr": "Rejoué depuis l'enregistrement d'un vrai petit modèle "
                            "(SmolLM2-135M, tests/recordings)"},
    "book.built": {"en": "Built from the repository by {command}.",
                   "fr": "Construit depuis le dépôt par {command}."},
    # tao debug
    "debug.started": {
        "en": "tao debug: {stage} pauses before each model request and before each tool "
              "call (type help at a pause)",
        "fr": "tao debug : {stage} s'arrête avant chaque requête au modèle et avant chaque "
              "appel d'outil (tapez help à une pause)"},
    "debug.how": {
        "en": "at a pause: show · edit N · drop N · inject … · reply TEXT · skip (a call) · "
              "step (Enter) · continue (to the next turn) · save FILE · help",
        "fr": "à une pause : show · edit N · drop N · inject … · reply TEXTE · skip (un "
              "appel) · step (Entrée) · continue (jusqu'au tour suivant) · save FICHIER · help"},
    "debug.at_request": {"en": "⏸ before request {number} to the model (messages: {count})",
                         "fr": "⏸ avant la requête {number} au modèle (messages : {count})"},
    "debug.at_call": {"en": "⏸ before the tool call {call} {args}",
                      "fr": "⏸ avant l'appel d'outil {call} {args}"},
    "debug.request_commands": {
        "en": "here: show [N|system] · edit N [TEXT] · drop N · inject [user] TEXT · inject "
              "tool NAME TEXT · reply TEXT · step · continue · save FILE",
        "fr": "ici : show [N|system] · edit N [TEXTE] · drop N · inject [user] TEXTE · inject "
              "tool NOM TEXTE · reply TEXTE · step · continue · save FICHIER"},
    "debug.call_commands": {
        "en": "here: show · edit [JSON] · skip · step · continue · save FILE",
        "fr": "ici : show · edit [JSON] · skip · step · continue · save FICHIER"},
    "debug.unknown": {"en": "{word!r} is no command at this pause; {commands}",
                      "fr": "{word!r} n'est pas une commande à cette pause ; {commands}"},
    "debug.yours": {"en": "yours · {what}", "fr": "de vous · {what}"},
    "debug.yours_reply": {
        "en": "reply to request {number}, written by you: the model was not asked",
        "fr": "réponse à la requête {number}, écrite par vous : le modèle n'a pas été "
              "sollicité"},
    "debug.yours_edited": {
        "en": "message {number} edited: the model reads this, not what was there",
        "fr": "message {number} modifié : le modèle lit ceci, pas ce qui s'y trouvait"},
    "debug.yours_dropped": {"en": "message {number} dropped: the model will not see it",
                            "fr": "message {number} retiré : le modèle ne le verra pas"},
    "debug.yours_injected": {"en": "injected as message {number}: the model reads it",
                             "fr": "injecté comme message {number} : le modèle le lit"},
    "debug.yours_skipped": {"en": "call skipped: the tool does not run; the model reads this",
                            "fr": "appel sauté : l'outil ne tourne pas ; le modèle lit ceci"},
    "debug.yours_args": {"en": "{call} now takes your arguments, in the conversation too",
                         "fr": "{call} prend vos arguments, dans la conversation aussi"},
    "debug.args_unusable": {"en": "these arguments are no JSON object: the stage refuses the "
                                  "call before any tool runs",
                            "fr": "ces arguments ne sont pas un objet JSON : l'étape refuse "
                                  "l'appel avant qu'aucun outil ne tourne"},
    "debug.the_call": {"en": "call {call} · id {id} · arguments:",
                       "fr": "appel {call} · id {id} · arguments :"},
    "debug.also_sent": {"en": "    and a system prompt of {chars} characters (show system); "
                              "tools: {tools}",
                        "fr": "    et une consigne système de {chars} caractères (show "
                              "system) ; outils : {tools}"},
    "debug.no_system": {"en": "(no system prompt)", "fr": "(pas de consigne système)"},
    "debug.inline_message": {"en": "now: {content}", "fr": "actuellement : {content}"},
    "debug.new_content": {"en": "new content, or a whole message as JSON (empty: no change)> ",
                          "fr": "nouveau contenu, ou un message entier en JSON (vide : rien "
                                "ne change)> "},
    "debug.inline_args": {"en": "now: {args}", "fr": "actuellement : {args}"},
    "debug.new_args": {"en": "new arguments as a JSON object (empty: no change)> ",
                       "fr": "nouveaux arguments, un objet JSON (vide : rien ne change)> "},
    "debug.unchanged": {"en": "nothing changed", "fr": "rien n'a changé"},
    "debug.inject_what": {"en": "inject what? inject [user] TEXT, or inject tool NAME TEXT",
                          "fr": "injecter quoi ? inject [user] TEXTE, ou inject tool NOM TEXTE"},
    "debug.reply_what": {"en": "reply what? reply TEXT: the text the model would have sent",
                         "fr": "répondre quoi ? reply TEXTE : le texte que le modèle aurait "
                               "envoyé"},
    "debug.rule_unused": {
        "en": "your skip of the {call} call was not needed: the stage refused the call before "
              "any tool ran",
        "fr": "sauter l'appel {call} n'a pas servi : l'étape a refusé l'appel avant qu'aucun "
              "outil ne tourne"},
    "debug.saved": {"en": "saved the session so far (requests answered: {count}) to {path}; "
                          "run it again with --provider replay:{path}",
                    "fr": "session enregistrée jusqu'ici (requêtes ayant eu réponse : {count}) "
                          "dans {path} ; à rejouer avec --provider replay:{path}"},
    "debug.left_ctrl_c": {"en": "Ctrl-C at a pause: the session ends here; nothing more was "
                                "sent or run",
                          "fr": "Ctrl-C à une pause : la session s'arrête ici ; rien de plus "
                                "n'a été envoyé ni lancé"},
    "debug.left_eof": {"en": "end of input at a pause: the session ends here; nothing more "
                             "was sent or run",
                       "fr": "fin de l'entrée à une pause : la session s'arrête ici ; rien de "
                             "plus n'a été envoyé ni lancé"},
    "debug.no_message": {"en": "no message {number}: there are {count} (show lists them)",
                         "fr": "pas de message {number} : il y en a {count} (show les liste)"},
    "debug.not_a_message": {"en": "that is no message: a JSON object with a role ({roles})",
                            "fr": "ce n'est pas un message : un objet JSON avec un rôle "
                                  "({roles})"},
    "debug.content_not_text": {"en": "a message's content must be text",
                               "fr": "le contenu d'un message doit être du texte"},
    "debug.bad_json": {"en": "not valid JSON ({why}): nothing changed",
                       "fr": "JSON invalide ({why}) : rien n'a changé"},
    "debug.args_not_object": {"en": "a call's arguments are a JSON object: nothing changed",
                              "fr": "les arguments d'un appel sont un objet JSON : rien n'a "
                                    "changé"},
    "debug.editor_failed": {"en": "the editor {editor!r} failed ({why}): nothing changed",
                            "fr": "l'éditeur {editor!r} a échoué ({why}) : rien n'a changé"},
    "debug.save_what": {"en": "save where? save FILE.json",
                        "fr": "enregistrer où ? save FICHIER.json"},
    "debug.save_folder": {"en": "{path} is a folder: name a file",
                          "fr": "{path} est un dossier : nommez un fichier"},
    "debug.save_no_folder": {"en": "{path}: there is no folder {folder}",
                             "fr": "{path} : il n'y a pas de dossier {folder}"},
    "debug.not_ours": {"en": "{path} exists and is no script tao debug saved: it stays as it "
                             "is; name another file",
                       "fr": "{path} existe et n'est pas un script enregistré par tao debug : "
                             "il reste tel quel ; nommez un autre fichier"},
    "debug.nothing_to_save": {"en": "nothing to save yet: no request has been answered",
                              "fr": "rien à enregistrer encore : aucune requête n'a eu de "
                                    "réponse"},
    "debug.cannot_write": {"en": "cannot write {path} ({why}): nothing was saved",
                           "fr": "impossible d'écrire {path} ({why}) : rien n'a été "
                                 "enregistré"},
    # tao port-test
    "port.header": {"en": "tao port-test {stage}: {about} (cases: {cases}, seed {seed})",
                    "fr": "tao port-test {stage} : {about} (cas : {cases}, graine {seed})"},
    "port.passed": {"en": "  ✓ {n} {name}", "fr": "  ✓ {n} {name}"},
    "port.failed": {"en": "  ✗ {n} {name}: {problem}", "fr": "  ✗ {n} {name} : {problem}"},
    "port.summary": {"en": "{passed} of {total} cases pass; `{again}` runs the same cases again",
                     "fr": "{passed} cas sur {total} passent ; `{again}` relance les mêmes cas"},
    "port.no_command": {"en": "name the program to test after --, e.g. `tao port-test {stage} "
                              "-- node port.mjs`",
                        "fr": "nommez le programme à tester après --, par exemple `tao "
                              "port-test {stage} -- node port.mjs`"},
    "port.cannot_run": {"en": "cannot run {program!r} ({why})",
                        "fr": "impossible de lancer {program!r} ({why})"},
    "port.no_contract": {"en": "{stage} has no {file}: no contract to hold a port to",
                         "fr": "{stage} n'a pas de {file} : pas de contrat auquel tenir un "
                               "portage"},
    "port.bad_contract": {"en": "{path} is not a contract tao can read ({why})",
                          "fr": "{path} n'est pas un contrat que tao sait lire ({why})"},
    "port.unknown_value": {"en": "the contract names a value {{{name}}} that port-test does not "
                                 "draw",
                           "fr": "le contrat nomme une valeur {{{name}}} que port-test ne tire "
                                 "pas"},
    "port.no_reply": {"en": "the contract's case {case!r} scripts no reply for {line!r}",
                      "fr": "le cas {case!r} du contrat ne prévoit aucune réponse pour {line!r}"},
    "port.one_more": {"en": "port-test: this case scripts {n} replies, and the program asked "
                            "for one more",
                      "fr": "port-test : ce cas prévoit {n} réponses, et le programme en a "
                            "demandé une de plus"},
    "port.both_apis": {"en": "it sent requests to both APIs: a stage speaks one",
                       "fr": "il a envoyé des requêtes aux deux API : une étape n'en parle "
                             "qu'une"},
    "port.no_request": {"en": "it sent no request (exit {code}; its last words: {said!r})",
                        "fr": "il n'a envoyé aucune requête (code {code} ; ses derniers mots : "
                              "{said!r})"},
    "port.at_request": {"en": "request {n}: {problem}", "fr": "requête {n} : {problem}"},
    "port.extra_request": {"en": "request {n} was not expected: the case ends after {total}",
                           "fr": "la requête {n} n'était pas attendue : le cas s'arrête après "
                                 "{total}"},
    "port.too_few": {"en": "requests sent: {sent} of the {total} the case expects",
                     "fr": "requêtes envoyées : {sent} sur les {total} qu'attend le cas"},
    "port.unreadable": {"en": "it cannot be read as a request of this API",
                        "fr": "elle ne se lit pas comme une requête de cette API"},
    "port.refused": {"en": "the API would refuse it: {why}",
                     "fr": "l'API la refuserait : {why}"},
    "port.model": {"en": "the model should be {want!r} (what TAO_MODEL says), not {got!r}",
                   "fr": "le modèle devrait être {want!r} (ce que dit TAO_MODEL), pas {got!r}"},
    "port.missing": {"en": "message {n} is missing: expected {want}, but the request ends "
                           "after message {last}",
                     "fr": "le message {n} manque : attendu {want}, mais la requête s'arrête "
                           "après le message {last}"},
    "port.at_message": {"en": "message {n}: {problem}", "fr": "message {n} : {problem}"},
    "port.extra_message": {"en": "message {n} was not expected: {got}",
                           "fr": "le message {n} n'était pas attendu : {got}"},
    "port.want_result": {"en": "the result of {name} (a tool message answering id {id}): "
                               "{content}",
                         "fr": "le résultat de {name} (un message tool qui répond à l'id {id}) "
                               ": {content}"},
    "port.want_fed": {"en": "the result of {name} fed back (a user message): {content}",
                      "fr": "le résultat de {name} renvoyé (un message user) : {content}"},
    "port.wrong_message": {"en": "expected {want}, got {got}",
                           "fr": "attendu {want}, reçu {got}"},
    "port.unpaired": {"en": "the tool result answers id {got!r}, but the call to {name} has "
                            "id {want!r}: a result must echo its call's id",
                      "fr": "le résultat d'outil répond à l'id {got!r}, mais l'appel à {name} "
                            "a l'id {want!r} : un résultat doit reprendre l'id de son appel"},
    "port.wrong_calls": {"en": "expected the calls {want}, got {got}",
                         "fr": "appels attendus {want}, reçu {got}"},
    "port.tool_missing": {"en": "the tool {name} is not advertised (it sends: {names})",
                          "fr": "l'outil {name} n'est pas annoncé (elle envoie : {names})"},
    "port.tools_not_native": {"en": "this stage lists its tools in the system prompt, yet the "
                                    "request advertises {names} natively",
                              "fr": "cette étape liste ses outils dans la consigne système, et "
                                    "pourtant la requête annonce {names} nativement"},
    "port.schema": {"en": "the tool {name}: {why}", "fr": "l'outil {name} : {why}"},
    "port.no_description": {"en": "it has no description", "fr": "il n'a pas de description"},
    "port.system_sent": {"en": "this stage sends no system prompt, yet the request holds one "
                               "of {chars} characters",
                         "fr": "cette étape n'envoie pas de consigne système, et pourtant la "
                               "requête en contient une de {chars} caractères"},
    "port.system_missing": {"en": "the system prompt is missing",
                            "fr": "la consigne système manque"},
    "port.system_changed": {"en": "the system prompt is not the one request 1 sent",
                            "fr": "la consigne système n'est pas celle de la requête 1"},
    "port.system_lacks": {"en": "the system prompt does not say {words!r}",
                          "fr": "la consigne système ne dit pas {words!r}"},
    "port.stop": {"en": "the stop sequences should hold {want}, not {got}",
                  "fr": "les séquences d'arrêt devraient contenir {want}, pas {got}"},
    "port.not_printed": {"en": "its output does not show {want!r} (its last words: {said!r})",
                         "fr": "sa sortie ne montre pas {want!r} (ses derniers mots : "
                               "{said!r})"},
    "port.timeout": {"en": "it did not end within {seconds} s after its input ended: stopped",
                     "fr": "il ne s'est pas arrêté dans les {seconds} s après la fin de son "
                           "entrée : arrêté"},
    "port.exit": {"en": "exit code {got}, expected {want} (its last words: {said!r})",
                  "fr": "code de sortie {got}, attendu {want} (ses derniers mots : {said!r})"},
    "port.file_missing": {"en": "the file {path} is not in the workspace",
                          "fr": "le fichier {path} n'est pas dans l'espace de travail"},
    "port.file_differs": {"en": "the file {path} should hold {want}, it holds {got}",
                          "fr": "le fichier {path} devrait contenir {want}, il contient {got}"},
    "port.file_there": {"en": "{path} exists, and must not",
                        "fr": "{path} existe, et ne doit pas"},
}


def text(message_id: str, lang: str | None = None, **parts) -> str:
    """Message `message_id` in `lang` (default: `language()`), its parts filled in; the
    English text when that language has none."""
    entry = MESSAGES[message_id]
    return (entry.get(lang or language()) or entry["en"]).format(**parts)
