# Shape: a 2020-era root pinning terraform-aws-modules/sqs 2.x (this_sqs_queue_* outputs) and lambda 1.x
# (this_lambda_function_* outputs), plus a call pinned to sqs 1.x, which visguard does not model
module "queue" {
  source  = "terraform-aws-modules/sqs/aws"
  version = "2.1.0"

  name                       = "legacy"
  visibility_timeout_seconds = 10
  message_retention_seconds  = 1209600
}

module "legacy_v1" {
  source  = "terraform-aws-modules/sqs/aws"
  version = "~> 1.2"

  name = "legacy-v1"
}

module "lambda" {
  source  = "terraform-aws-modules/lambda/aws"
  version = "1.48.0"

  function_name  = "legacy-worker"
  timeout        = 20
  lambda_at_edge = true

  event_source_mapping = {
    sqs = {
      event_source_arn        = module.queue.this_sqs_queue_arn
      batch_size              = 1
      function_response_types = ["ReportBatchItemFailures"]
    }
  }
}

output "worker" {
  value = module.lambda.this_lambda_function_name
}
