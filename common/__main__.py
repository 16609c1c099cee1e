from visguard.cli import entry

entry()
