variable "queue_arn" {}
variable "role_name" {}

resource "aws_iam_role" "this" {
  name = var.role_name
}

resource "aws_lambda_function" "this" {
  function_name = "ingest-worker"
  role          = aws_iam_role.this.arn
  timeout       = 60
}

resource "aws_lambda_event_source_mapping" "this" {
  event_source_arn = var.queue_arn
  function_name    = aws_lambda_function.this.arn
  batch_size       = 1
}

output "function_name" {
  value = aws_lambda_function.this.function_name
}
