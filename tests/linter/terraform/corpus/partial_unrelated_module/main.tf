# Shape: a community "app" root: a queue worker and an ECS service from a local module; the ECS module
# call passes an argument the module does not declare (visguard cannot read that call; it is unrelated)
module "api" {
  source        = "./modules/ecs-service"
  service_name  = "api"
  desired_count = 2
  task_cpu      = 256
}

resource "aws_sqs_queue" "jobs_dlq" {
  name                      = "jobs-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "jobs" {
  name                       = "jobs"
  visibility_timeout_seconds = 30
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.jobs_dlq.arn
    maxReceiveCount     = 1
  })
}

resource "aws_lambda_function" "jobs" {
  function_name = "jobs"
  role          = "arn:aws:iam::123456789012:role/jobs"
  handler       = "index.handler"
  runtime       = "nodejs20.x"
  timeout       = 10
}

resource "aws_lambda_event_source_mapping" "jobs" {
  event_source_arn        = aws_sqs_queue.jobs.arn
  function_name           = aws_lambda_function.jobs.arn
  function_response_types = ["ReportBatchItemFailures"]
}
