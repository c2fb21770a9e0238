"""The teaching core: one primitive table, several interpreters (being assembled; see issue 23)."""
