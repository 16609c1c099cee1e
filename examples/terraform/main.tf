# An example root module for `visguard lint examples/terraform` (see README, "Terraform"). It has planted
# defects; `terraform validate` accepts it, and `terraform apply` would fail on the first one.

locals {
  # one map drives the notification queues, their DLQs and their workers
  notifications = {
    email = { timeout = 20, batch_size = 10 }
    sms   = { timeout = 10, batch_size = 1 }
  }
  tags = { team = "checkout", env = var.env }
}

# -- orders: the queue a 300 s worker reads --------------------------------------------------------------
resource "aws_sqs_queue" "orders" {
  name                       = "orders-${var.env}"
  visibility_timeout_seconds = var.orders_visibility_timeout # 60 in terraform.tfvars: below the worker's 300 s
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 5
  })
  tags = local.tags
}

resource "aws_sqs_queue" "orders_dlq" {
  name = "orders-${var.env}-dlq" # retention left at 4 days, like the source queue's
  tags = local.tags
}

module "orders_worker" {
  source        = "./modules/worker"
  name          = "orders-${var.env}"
  queue_arn     = aws_sqs_queue.orders.arn
  timeout       = var.orders_worker_timeout
  batch_size    = 10
  batch_window  = 0
  partial_batch = true
}

# -- notifications: for_each over the map above -----------------------------------------------------------
resource "aws_sqs_queue" "notifications_dlq" {
  for_each                  = local.notifications
  name                      = "notify-${each.key}-${var.env}-dlq"
  message_retention_seconds = 1209600
}

# visguard:ignore VG011 the senders are idempotent and retried by the provider SDK
resource "aws_sqs_queue" "notifications" {
  for_each                   = local.notifications
  name                       = "notify-${each.key}-${var.env}"
  visibility_timeout_seconds = max(each.value.timeout * 3, 30)
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.notifications_dlq[each.key].arn
    maxReceiveCount     = 3
  })
}

module "notification_workers" {
  source        = "./modules/worker"
  for_each      = local.notifications
  name          = "notify-${each.key}-${var.env}"
  queue_arn     = aws_sqs_queue.notifications[each.key].arn
  timeout       = each.value.timeout
  batch_size    = each.value.batch_size
  batch_window  = 0
  partial_batch = false
}

# -- payments: the registry modules, modelled without `terraform init` --------------------------------------
module "payments_queue" {
  source  = "terraform-aws-modules/sqs/aws"
  version = "~> 4.2"

  name                          = "payments-${var.env}"
  visibility_timeout_seconds    = 360
  create_dlq                    = true
  dlq_message_retention_seconds = 1209600
}

module "payments_fn" {
  source  = "terraform-aws-modules/lambda/aws"
  version = "~> 7.0"

  function_name = "payments-${var.env}"
  handler       = "index.handler"
  runtime       = "nodejs22.x"
  timeout       = 60

  event_source_mapping = {
    sqs = {
      event_source_arn        = module.payments_queue.queue_arn
      function_response_types = ["ReportBatchItemFailures"]
    }
  }
}
