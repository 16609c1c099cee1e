# what Terraform users get; OpenTofu ignores this file (main.tofu takes its place)
resource "aws_sqs_queue" "reports" {
  name                       = "reports"
  visibility_timeout_seconds = 5000
}
