locals {
  workers = {
    thumbnails = { timeout = 30, batch_size = 10 }
    invoices   = { timeout = 120, batch_size = 1 }
    exports    = { timeout = 900, batch_size = 5 }
  }
}

resource "aws_sqs_queue" "dlq" {
  for_each                  = local.workers
  name                      = "${each.key}-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "work" {
  for_each                   = local.workers
  name                       = each.key
  visibility_timeout_seconds = each.value.timeout * 6
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq[each.key].arn
    maxReceiveCount     = 5
  })
}

resource "aws_lambda_function" "worker" {
  for_each      = local.workers
  function_name = "${each.key}-worker"
  role          = "arn:aws:iam::123456789012:role/workers"
  handler       = "main.handler"
  runtime       = "python3.12"
  filename      = "build/${each.key}.zip"
  timeout       = each.value.timeout
}

resource "aws_lambda_event_source_mapping" "work" {
  for_each                = local.workers
  event_source_arn        = aws_sqs_queue.work[each.key].arn
  function_name           = aws_lambda_function.worker[each.key].arn
  batch_size              = each.value.batch_size
  function_response_types = each.value.batch_size > 1 ? ["ReportBatchItemFailures"] : []
}
