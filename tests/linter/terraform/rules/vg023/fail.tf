# VG023: the CloudFormation fixture tests/linter/fixtures/rules/vg023/fail.yaml, in Terraform
resource "aws_sqs_queue" "queue_a" {
  name                       = "queue-a"
  visibility_timeout_seconds = 30
  redrive_policy = jsonencode({
    deadLetterTargetArn = "arn:aws:sqs:us-east-1:123456789012:queue-b"
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "queue_b" {
  name                       = "queue-b"
  visibility_timeout_seconds = 30
  message_retention_seconds  = 1209600
  redrive_policy             = "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:123456789012:queue-a\",\"maxReceiveCount\":5}"
}
