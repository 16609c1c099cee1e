env = "staging"
