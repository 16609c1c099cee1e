variable "prefix" {
  type = string
}

variable "sqs_build_queue" {
  description = "The queue the scale-up function reads (the whole resource)."
  type = object({
    arn = string
  })
}

variable "lambda_timeout" {
  type    = number
  default = 60
}

resource "aws_lambda_function" "scale_up" {
  function_name                  = "${var.prefix}-scale-up"
  role                           = "arn:aws:iam::123456789012:role/${var.prefix}-scale-up"
  handler                        = "index.scaleUpHandler"
  runtime                        = "nodejs22.x"
  filename                       = "${path.module}/lambdas/runners.zip"
  timeout                        = var.lambda_timeout
  reserved_concurrent_executions = 10
}

resource "aws_lambda_event_source_mapping" "scale_up" {
  event_source_arn = var.sqs_build_queue.arn
  function_name    = aws_lambda_function.scale_up.arn
  batch_size       = 10
}
