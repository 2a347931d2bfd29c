"""What people read after a score run: the terminal table, JUnit XML, SARIF 2.1.0 and one HTML page.

Each module turns the records of `scoring.run` (input order) into one format; none runs anything.
Text that came from inside a sandbox (test names, messages) is data in every format: escaped,
never read as markup.
"""
