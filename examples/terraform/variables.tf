variable "env" {
  description = "Deployment environment"
  type        = string
  default     = "dev"
}

variable "orders_visibility_timeout" {
  description = "Visibility timeout of the orders queue, in seconds"
  type        = number
}

variable "orders_worker_timeout" {
  description = "Timeout of the orders worker function, in seconds"
  type        = number
  default     = 300
}
