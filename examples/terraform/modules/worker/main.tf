# A Lambda worker for one queue: the function and its event source mapping.

variable "name" {
  type = string
}

variable "queue_arn" {
  type = string
}

variable "timeout" {
  type    = number
  default = 30
}

variable "batch_size" {
  type    = number
  default = 10
}

variable "batch_window" {
  type    = number
  default = 0
}

variable "partial_batch" {
  description = "Report batch item failures (the handler returns batchItemFailures)"
  type        = bool
  default     = true
}

resource "aws_lambda_function" "this" {
  function_name = var.name
  role          = "arn:aws:iam::123456789012:role/${var.name}"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "${path.module}/build/worker.zip"
  timeout       = var.timeout
}

resource "aws_lambda_event_source_mapping" "this" {
  event_source_arn                   = var.queue_arn
  function_name                      = aws_lambda_function.this.arn
  batch_size                         = var.batch_size
  maximum_batching_window_in_seconds = var.batch_window
  function_response_types            = var.partial_batch ? ["ReportBatchItemFailures"] : []
}

output "function_arn" {
  value = aws_lambda_function.this.arn
}
