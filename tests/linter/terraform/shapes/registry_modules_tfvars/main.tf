variable "env" {
  type = string
}

variable "payments_visibility" {
  type    = number
  default = 30
}

variable "payments_timeout" {
  type    = number
  default = 30
}

module "payments_queue" {
  source  = "terraform-aws-modules/sqs/aws"
  version = "~> 4.2"

  name                       = "payments-${var.env}"
  visibility_timeout_seconds = var.payments_visibility
  create_dlq                 = true
  dlq_message_retention_seconds = 1209600
}

module "payments_fn" {
  source  = "terraform-aws-modules/lambda/aws"
  version = "~> 7.0"

  function_name = "payments-${var.env}"
  handler       = "index.handler"
  runtime       = "nodejs22.x"
  timeout       = var.payments_timeout

  event_source_mapping = {
    sqs = {
      event_source_arn        = module.payments_queue.queue_arn
      function_response_types = ["ReportBatchItemFailures"]
      scaling_config = {
        maximum_concurrency = 50
      }
    }
  }
}
