variable "service_name" {}
variable "desired_count" {
  default = 1
}

resource "aws_ecs_service" "this" {
  name          = var.service_name
  desired_count = var.desired_count
}
