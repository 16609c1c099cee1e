terraform {
  source = "../../../modules/sqs-worker"
}

inputs = {
  name               = "billing"
  function_timeout   = 30
  visibility_timeout = 180
  batch_size         = 100
}
