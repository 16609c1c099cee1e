terraform {
  source = "git::git@github.com:acme/infra-modules.git//sqs-worker?ref=v2.3.0"
}

inputs = {
  name = "notifications"
}
