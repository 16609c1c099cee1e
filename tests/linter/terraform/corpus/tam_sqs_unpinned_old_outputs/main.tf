# Shape: a root written against terraform-aws-modules/sqs 3.x (the sqs_queue_* outputs) that pins no version,
# consumed by a plain aws_lambda_function through an aws_lambda_event_source_mapping
module "jobs" {
  source = "terraform-aws-modules/sqs/aws"

  name                       = "jobs"
  visibility_timeout_seconds = 300
}

resource "aws_iam_role" "worker" {
  name = "jobs-worker"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "lambda.amazonaws.com" } }]
  })
}

resource "aws_lambda_function" "worker" {
  function_name = "jobs-worker"
  role          = aws_iam_role.worker.arn
  handler       = "index.handler"
  runtime       = "python3.12"
  filename      = "worker.zip"
  timeout       = 300
}

resource "aws_lambda_event_source_mapping" "jobs" {
  event_source_arn = module.jobs.sqs_queue_arn
  function_name    = aws_lambda_function.worker.arn
}
