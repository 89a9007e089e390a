"""How the engine reads text it did not write: one package, below every other (it imports nothing of the engine).

- `focal.text.views`: the reader view (what a reader sees: compatibility forms, invisible characters, digits of any
  script, spaces and dashes each in one form) and the check view (the reader view with letters that look Latin read
  as Latin ones where the script mixing says they are a disguise, and accents dropped), the one view pre-validation,
  the masking rules and enforcement all match against;
- `focal.text.numbers`: written figures read in the styles of the languages an agent declares;
- `focal.text.characters`, `focal.text.invisible`, `focal.text.lookalikes`: what the views are made of.
"""
