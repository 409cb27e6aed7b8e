"""python -m glossary.cli"""

from glossary.cli import main

main()
