locals {
  env = "prod"
}

terraform {
  source = "../../../modules//sqs-worker"
}

inputs = {
  name               = "orders-${local.env}"
  function_timeout   = 60
  visibility_timeout = 60
}
